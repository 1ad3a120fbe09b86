// Embedded mode as an operator runs it (`node --import tsx src/main.ts`, no service URLs): a
// DATA_DIR on a path with spaces and non-ASCII letters, the CLI beside the running server (README
// CLI: Postgres-only commands work, `migrate` and `users delete` refuse as the embedded ClickHouse
// opens in one process), a second server on the same DATA_DIR (it printed a stack trace under the
// engine's reason), Ctrl-C pressed twice (it exited and left the embedded Postgres running: the
// postmaster runs in a session of its own), and, as root, a DATA_DIR under a parent only its owner
// can enter (root's home, 0700: initdb failed "Permission denied" with a stack trace). After each,
// no Postgres process may be left on the DATA_DIR unless another process uses it.
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, open, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, BOOT_MS, cli, initdbsOn, parseBanner, postgresOn, STOP_MS } from '../support/embedded-kit.ts';
import {
  bootService,
  freshDataDir,
  readyz,
  removeDataDirs,
  serviceEnv,
  startOutcome,
  startService,
  waitUntil,
} from '../support/embedded-service.ts';
import { type Child, isAlive, killStartedChildren, postmasterPid, startNode } from '../support/processes.ts';

const dirs: string[] = [];
afterAll(async () => {
  await killStartedChildren();
  for (const d of dirs) {
    for (const pid of postgresOn(path.join(d, 'data'))) {
      try {
        process.kill(pid, 'SIGINT');
      } catch {
        // gone
      }
    }
  }
  await removeDataDirs();
  for (const d of dirs) {
    await rm(d, { recursive: true, force: true });
  }
});

const CH_LOCKED = 'Another server instance in same directory is already running';
const CLI_CHILD = ['--import', 'tsx', path.join('test', 'support', 'embedded-cli-child.ts')];

/** A Postgres-only CLI command that holds the embedded Postgres until sent 'close'. */
async function openCli(env: Record<string, string>): Promise<Child> {
  const command = startNode(CLI_CHILD, env, { ipc: true });
  await command.waitFor('cli: postgres open', BOOT_MS);
  return command;
}

describe('embedded mode, operated', () => {
  it('when DATA_DIR has spaces and non-ASCII letters, then it serves; beside it projects list works, migrate, users delete and a second server refuse naming the lock, and the server keeps serving and stops clean', async () => {
    const parent = await mkdtemp(path.join(os.tmpdir(), 'embedded operated ünï '));
    dirs.push(parent);
    await chmod(parent, 0o755); // mkdtemp makes it 0700: see the last test
    const dataDir = path.join(parent, 'dätä dir');
    const env = await serviceEnv(dataDir);
    const svc = await bootService(env, BOOT_MS);
    const banner = parseBanner(svc.stdout());
    const pgPid = postmasterPid(dataDir) as number;

    const list = await cli(env, ['projects', 'list', '--json']);
    expect(list.proc.exitCode, list.stderr()).toBe(0);
    expect(list.stdout()).toContain(banner.projectId);

    const del = await cli(env, ['users', 'delete', '--project', banner.projectId, '--user-id', 'u-1']);
    expect(del.proc.exitCode).toBe(1);
    expect(del.stderr()).toContain(CH_LOCKED);
    const migrate = await cli(env, ['migrate']);
    expect(migrate.proc.exitCode).toBe(1);
    expect(migrate.stderr()).toContain(CH_LOCKED);

    const other = startService({ ...env, PORT: String(Number(env.PORT) + 1) });
    expect(await startOutcome(other, BOOT_MS)).toBe('exited 1');
    expect(other.stderr()).toContain(CH_LOCKED);
    expect(other.stderr(), 'one line, no stack trace').not.toMatch(/^\s+at /m);
    expect(other.stderr().match(/^startup failed: .*$/gm)).toEqual([
      `startup failed: the embedded ClickHouse did not open: Failed to create connection for path '${path.join(dataDir, 'clickhouse')}' (its reason is on the line before)`,
    ]);

    expect(isAlive(pgPid), 'the refused processes left the server its Postgres').toBe(true);
    expect(await readyz(Number(env.PORT))).toBe(200);
    svc.proc.kill('SIGTERM');
    expect(await svc.waitExit(STOP_MS), svc.stderr()).toEqual({ code: 0, signal: null });
    expect(postgresOn(dataDir)).toEqual([]);
  }, 180_000);

  it('when Ctrl-C is pressed twice, then the process exits at once and leaves no embedded Postgres running', async () => {
    const dataDir = await freshDataDir();
    const env = await serviceEnv(dataDir);
    const svc = await bootService(env, BOOT_MS);
    const pgPid = postmasterPid(dataDir) as number;

    // A terminal's Ctrl-C reaches the foreground process group; the second follows the first.
    process.kill(-(svc.proc.pid as number), 'SIGINT');
    await new Promise((r) => setTimeout(r, 20));
    process.kill(-(svc.proc.pid as number), 'SIGINT');
    const exit = await svc.waitExit(STOP_MS);

    expect(exit.code).toBe(1);
    expect(svc.stderr()).toContain('SIGINT again: exiting now');
    expect(svc.stderr()).toContain(
      `stopped the embedded Postgres (pid ${pgPid}, data in ${path.join(dataDir, 'postgres')}): no other process used it`,
    );
    expect(isAlive(pgPid), 'stopped before the process exited').toBe(false);
    expect(postgresOn(dataDir), 'Postgres processes left on the DATA_DIR').toEqual([]);
  }, 120_000);

  it('when Ctrl-C is pressed twice while a CLI command uses the Postgres, then the process exits at once, saying it left it running, and the command ending stops it', async () => {
    const dataDir = await freshDataDir();
    const env = await serviceEnv(dataDir);
    const svc = await bootService(env, BOOT_MS);
    const pgPid = postmasterPid(dataDir) as number;
    const command = await openCli(env);

    process.kill(-(svc.proc.pid as number), 'SIGINT');
    await new Promise((r) => setTimeout(r, 20));
    process.kill(-(svc.proc.pid as number), 'SIGINT');
    const exit = await svc.waitExit(STOP_MS);

    expect(exit.code).toBe(1);
    expect(svc.stderr()).toMatch(
      new RegExp(
        `the embedded Postgres \\(pid ${pgPid}, .*\\) is left running: other processes use it \\(attribution:cli:${command.proc.pid}\\)`,
      ),
    );
    expect(isAlive(pgPid), 'the command still has its Postgres').toBe(true);
    command.proc.send?.('close');
    expect(await command.waitExit(STOP_MS), command.stderr()).toEqual({ code: 0, signal: null });
    await waitUntil(() => !isAlive(pgPid), 10_000, 'the postmaster stopped').catch(() => {});
    expect(postgresOn(dataDir), 'the last one out stopped it').toEqual([]);
  }, 120_000);

  it('when Ctrl-C is pressed twice on a CLI command that started the Postgres, then it exits 130 at once and stops that Postgres', async () => {
    const dataDir = await freshDataDir();
    const env = await serviceEnv(dataDir, { LOG_LEVEL: 'warn' });
    const created = await cli(env, ['projects', 'create', '--name', 'Ctrl-C', '--json']);
    expect(created.proc.exitCode, created.stderr()).toBe(0);
    const projectId = (JSON.parse(created.stdout()) as { id: string }).id;
    // The import reads a pipe the test keeps writing to: the command runs until it is interrupted.
    // (A read waiting on an idle pipe would hold up any exit: Node joins its threads on the way out.)
    const fifo = path.join(path.dirname(dataDir), 'spend.csv');
    execFileSync('mkfifo', [fifo]);
    const command = startNode([...BIN, 'spend', 'import', '--project', projectId, '--file', fifo], env, {
      detached: true,
    });
    const pipe = await open(fifo, 'w'); // once the command, its Postgres open, reads the file
    let writing = true;
    const writer = (async () => {
      await pipe.write('day,campaign_display_id,ad_set_id,amount\n');
      for (let i = 0; writing; i++) {
        await pipe.write(`2026-01-01,c1,as-${i},1.25\n`);
        await new Promise((r) => setTimeout(r, 5));
      }
    })().catch(() => {}); // EPIPE once the command has gone
    try {
      const pgPid = postmasterPid(dataDir) as number;
      expect(isAlive(pgPid)).toBe(true);

      process.kill(-(command.proc.pid as number), 'SIGINT');
      await new Promise((r) => setTimeout(r, 20));
      process.kill(-(command.proc.pid as number), 'SIGINT');
      const exit = await command.waitExit(STOP_MS);

      expect(exit, command.stderr()).toEqual({ code: 130, signal: null });
      expect(command.stderr()).toContain('SIGINT again: exiting now');
      expect(command.stderr()).toContain(`stopped the embedded Postgres (pid ${pgPid}, `);
      expect(isAlive(pgPid), 'stopped before the command exited').toBe(false);
      expect(postgresOn(dataDir)).toEqual([]);
    } finally {
      writing = false;
      await writer;
      await pipe.close();
    }
  }, 120_000);

  it.skipIf(os.userInfo().uid !== 0)(
    "when run as root with DATA_DIR under a directory only root can enter (root's home), then it exits 1 with one line naming that directory and the fix, changes no mode, and starts once the directory allows it",
    async () => {
      const parent = await mkdtemp(path.join(os.tmpdir(), 'embedded-operated-0700-'));
      dirs.push(parent);
      await chmod(parent, 0o755);
      const home = path.join(parent, 'root-home'); // like /root: drwx------
      await mkdir(home, { mode: 0o700 });
      const dataDir = path.join(home, 'app', 'data'); // `npm start` in ~/app: ./data
      const env = await serviceEnv(dataDir);
      const svc = startService(env);
      const outcome = await startOutcome(svc, BOOT_MS);

      expect(outcome, svc.stderr().slice(-2000)).toBe('exited 1');
      expect(svc.stderr().trim()).toBe(
        `startup failed: DATA_DIR ${dataDir}: the embedded Postgres runs as the user 'postgres' (Postgres refuses root), who cannot enter ${home} (mode 0700). ` +
          `Allow it with \`chmod o+x ${home}\`, or set DATA_DIR to a directory outside it.`,
      );
      expect((await stat(home)).mode & 0o777, "the operator's directory is left as it was").toBe(0o700);
      expect(initdbsOn(dataDir)).toEqual([]);
      expect(postgresOn(dataDir)).toEqual([]);

      await chmod(home, 0o701); // what the line says
      const again = startService(env);
      expect(await startOutcome(again, BOOT_MS), again.stderr().slice(-2000)).toBe('listening');
      again.proc.kill('SIGTERM');
      expect(await again.waitExit(STOP_MS)).toEqual({ code: 0, signal: null });
      expect(postgresOn(dataDir)).toEqual([]);
    },
    120_000,
  );
});
