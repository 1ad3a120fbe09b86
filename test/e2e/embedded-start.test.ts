// End to end: `npm start` with no service URLs (embedded mode) from an empty DATA_DIR, run as a
// child process with a bare environment. Issue: first start creates a default project and prints its
// token and key once; later starts reuse the data; Ctrl-C shuts down cleanly; a bad setting stops
// startup with a message naming it. The slowest file: each start boots Postgres and chdb.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Child,
  cleanEnv,
  freePort,
  isAlive,
  killStartedChildren,
  postmasterPid,
  processGroup,
  startNode,
} from '../support/processes.ts';

const SERVICE = ['--import', 'tsx', 'src/main.ts'];
const BIN = ['bin/attribution.mjs'];
const BOOT_MS = 90_000;
const STOP_MS = 25_000; // main.ts forces exit(1) after 20 s; a clean stop exits 0 well before
const TEST_MS = 150_000;

const dirs: string[] = [];
afterAll(async () => {
  await killStartedChildren();
  for (const d of dirs) {
    await rm(d, { recursive: true, force: true });
  }
});

async function emptyDataDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'attribution-e2e-'));
  // Embedded Postgres runs as the 'postgres' user when we are root; it must reach the dir.
  await chmod(dir, 0o755);
  dirs.push(dir);
  return dir;
}

type Banner = { projectId: string; token: string; serverKey: string };

function parseBanner(stdout: string): Banner | undefined {
  const projectId = /project id:\s+(\S+)/.exec(stdout)?.[1];
  const token = /project token:\s+(pt_\S+)/.exec(stdout)?.[1];
  const serverKey = /server key:\s+(sk_\S+)/.exec(stdout)?.[1];
  return projectId && token && serverKey ? { projectId, token, serverKey } : undefined;
}

async function listCampaigns(port: number, serverKey: string): Promise<Response> {
  return fetch(`http://127.0.0.1:${port}/api/v1/campaigns`, { headers: { 'service-key': serverKey } });
}

const occurrences = (text: string, needle: string) => text.split(needle).length - 1;

/**
 * Writes `line` to the child's stdin every `ms` until the returned function is called. The child
 * points fd 0 at /dev/null once it starts, so writes may end in EPIPE: ignored.
 */
function keepTyping(child: Child, line: string, ms: number): () => void {
  child.proc.stdin?.on('error', () => {});
  const timer = setInterval(() => child.proc.stdin?.write(`${line}\n`), ms);
  return () => clearInterval(timer);
}

describe('npm start in embedded mode', () => {
  let dataDir: string;
  let port: number;
  let env: Record<string, string>;
  let first: Banner | undefined;

  beforeAll(async () => {
    dataDir = await emptyDataDir();
    port = await freePort();
    env = cleanEnv({
      DATA_DIR: dataDir,
      PORT: String(port),
      EMBEDDED_PG_PORT: String(await freePort()),
      LOG_LEVEL: 'info',
    });
  });

  /** Rows waiting in the fact outbox, from the CLI beside the running service. */
  async function outboxRows(): Promise<number> {
    const cli = startNode([...BIN, 'facts', 'status', '--json'], env);
    const exit = await cli.waitExit(60_000);
    expect(exit, cli.stderr()).toEqual({ code: 0, signal: null });
    return (JSON.parse(cli.stdout()) as { total_rows: number }).total_rows;
  }

  async function boot(): Promise<Child> {
    // Its own process group: cleanup then also reaches the embedded Postgres it starts.
    const svc = startNode(SERVICE, env, { detached: true });
    await svc.waitFor('Server listening', BOOT_MS);
    return svc;
  }

  it(
    'when started on an empty data dir, then it creates a default project, prints its keys once, serves /api/v1 and /readyz, and stops cleanly on SIGINT',
    async () => {
      const svc = await boot();

      first = parseBanner(svc.stdout());
      expect(first, svc.stdout()).toBeDefined();
      const banner = first as Banner;
      expect(svc.stdout()).toContain('First start: created the project "Default project".');
      expect(svc.stdout()).toContain('npm run cli -- projects create --name <name>');
      // Shown once: in the banner, never again in the logs.
      expect(occurrences(svc.stdout(), banner.serverKey)).toBe(1);
      expect(occurrences(svc.stdout(), banner.token)).toBe(1);

      const list = await listCampaigns(port, banner.serverKey);
      expect(list.status).toBe(200);
      expect(((await list.json()) as { data: { total_campaigns: number } }).data.total_campaigns).toBe(0);
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({
        status: 'ready',
        checks: { postgres: 'ok', clickhouse: 'ok', redis: 'not configured' },
      });
      const pgPid = postmasterPid(dataDir);
      expect(pgPid && isAlive(pgPid)).toBe(true);

      svc.proc.kill('SIGINT');
      const exit = await svc.waitExit(STOP_MS);

      expect(exit, svc.stderr()).toEqual({ code: 0, signal: null });
      expect(svc.stdout()).toContain('"msg":"stopped"');
      expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
      expect(isAlive(pgPid as number)).toBe(false);
      expect(existsSync(path.join(dataDir, 'clickhouse'))).toBe(true);
    },
    TEST_MS,
  );

  it(
    'when started again on the same data dir, then it reuses the data (no banner, the old key works), the CLI works beside it, and Ctrl-C to the process group stops both cleanly',
    async () => {
      expect(first, 'needs the first start').toBeDefined();
      const banner = first as Banner;
      const svc = await boot();

      expect(svc.stdout()).not.toContain('First start');
      expect(parseBanner(svc.stdout())).toBeUndefined();
      expect((await listCampaigns(port, banner.serverKey)).status).toBe(200);

      // The CLI in embedded mode finds the running postmaster and connects to it.
      const cli = startNode([...BIN, 'projects', 'create', '--name', 'Second', '--json'], env);
      const cliExit = await cli.waitExit(60_000);
      expect(cliExit, cli.stderr()).toEqual({ code: 0, signal: null });
      const created = JSON.parse(cli.stdout()) as { id: string; server_key: string };
      expect((await listCampaigns(port, created.server_key)).status).toBe(200);

      const pgPid = postmasterPid(dataDir) as number;
      // A terminal's Ctrl-C signals the whole foreground group. Postgres is not in it (it runs in a
      // session of its own); in it, it began its fast shutdown while the service still drained.
      expect(processGroup(pgPid)).not.toBe(processGroup(svc.proc.pid as number));
      process.kill(-(svc.proc.pid as number), 'SIGINT');
      const exit = await svc.waitExit(STOP_MS);

      expect(exit, svc.stderr()).toEqual({ code: 0, signal: null });
      expect(svc.stdout()).toContain('"msg":"stopped"');
      expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
      expect(isAlive(pgPid)).toBe(false);
    },
    TEST_MS,
  );

  it(
    'when Postgres has already stopped before the service gets SIGINT, then the service still completes its shutdown',
    async () => {
      const svc = await boot();
      const pgPid = postmasterPid(dataDir) as number;
      process.kill(pgPid, 'SIGINT');
      await waitUntil(() => !isAlive(pgPid), 20_000);

      svc.proc.kill('SIGINT');
      const exit = await svc.waitExit(STOP_MS);

      expect(exit, svc.stderr()).toEqual({ code: 0, signal: null });
      expect(svc.stdout()).toContain('"msg":"stopped"');
    },
    TEST_MS,
  );

  it(
    "when lines keep arriving on the CLI's stdin while `migrate` sets up an empty data dir, then the embedded engine never reads them as INSERT data and it exits 0 with the migrations applied",
    async () => {
      const dir = await emptyDataDir();
      const cliEnv = cleanEnv({ DATA_DIR: dir, EMBEDDED_PG_PORT: String(await freePort()), LOG_LEVEL: 'warn' });
      const cli = startNode([...BIN, 'migrate'], cliEnv);
      const stopTyping = keepTyping(cli, 'y', 5);
      let exit: Awaited<ReturnType<Child['waitExit']>>;
      try {
        exit = await cli.waitExit(BOOT_MS);
      } finally {
        stopTyping();
      }

      expect(exit, cli.stderr()).toEqual({ code: 0, signal: null });
      expect(cli.stdout()).toContain('migrations applied');
    },
    TEST_MS,
  );

  it(
    'when lines keep arriving on its stdin (a pipe), then facts still reach ClickHouse: the embedded engine never reads them as INSERT data',
    async () => {
      expect(first, 'needs the first start').toBeDefined();
      const banner = first as Banner;
      const svc = await boot();
      const stopTyping = keepTyping(svc, 'typed line', 20);
      let exit: Awaited<ReturnType<Child['waitExit']>> | undefined;
      try {
        for (let i = 0; i < 20; i++) {
          const res = await fetch(`http://127.0.0.1:${port}/api/client/init`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              token: banner.token,
              platform: 'ANDROID',
              install_instance_id: randomUUID(),
              device_data: {},
            }),
          });
          expect(res.status).toBe(202);
        }
        // The writer flushes about once a second; the installs' facts leave the outbox once inserted.
        await waitUntil(async () => (await outboxRows()) === 0, 30_000);
      } finally {
        stopTyping();
        svc.proc.kill('SIGINT');
        exit = await svc.waitExit(STOP_MS);
      }

      expect(exit, svc.stderr()).toEqual({ code: 0, signal: null });
      expect(svc.stdout()).not.toContain('ClickHouse or Postgres unavailable');
    },
    TEST_MS,
  );

  it(
    'when the port is taken, then startup fails with the reason and leaves no Postgres running',
    async () => {
      const blocker = net.createServer();
      await new Promise<void>((resolve) => blocker.listen(port, '0.0.0.0', resolve));
      try {
        const svc = startNode(SERVICE, env, { detached: true });
        const exit = await svc.waitExit(BOOT_MS);

        expect(exit.code).toBe(1);
        expect(svc.stderr()).toContain('EADDRINUSE');
        expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
      } finally {
        await new Promise((resolve) => blocker.close(resolve));
      }
    },
    TEST_MS,
  );
});

describe('npm start with a bad setting', () => {
  const cases: [string, Record<string, string>, string][] = [
    ['PORT=abc', { PORT: 'abc' }, 'PORT'],
    ['ROLE=worker without REDIS_URL', { ROLE: 'worker' }, 'REDIS_URL'],
    ['ROLE=api without REDIS_URL', { ROLE: 'api' }, 'REDIS_URL'],
    ['DATABASE_URL=mysql://…', { DATABASE_URL: 'mysql://u@localhost/db' }, 'DATABASE_URL'],
    // Found by Fastify's proxy-addr only after Postgres had started, naming no setting.
    ['TRUST_PROXY=10.0.0.0/33', { TRUST_PROXY: '10.0.0.0/33' }, 'TRUST_PROXY'],
    // Was taken by a prefix match, and the service served with it.
    ['PUBLIC_URL=http://exa mple.com', { PUBLIC_URL: 'http://exa mple.com' }, 'PUBLIC_URL'],
  ];
  it.each(cases)(
    'when %s, then it exits non-zero with a message naming the setting and starts nothing',
    async (_name, extra, setting) => {
      const dataDir = await emptyDataDir();
      const svc = startNode(SERVICE, cleanEnv({ DATA_DIR: dataDir, LOG_LEVEL: 'info', ...extra }));
      const exit = await svc.waitExit(60_000);

      expect(exit.code).not.toBe(0);
      expect(exit.code).not.toBeNull();
      expect(svc.stderr()).toContain('Invalid configuration');
      expect(svc.stderr()).toContain(setting);
      expect(svc.stdout()).not.toContain('Server listening');
      expect(existsSync(path.join(dataDir, 'postgres'))).toBe(false);
    },
    90_000,
  );
});

async function waitUntil(cond: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) {
      throw new Error(`condition not met after ${timeoutMs} ms`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
