// End to end: one embedded Postgres shared by the processes on a DATA_DIR. Issue: the process that
// started Postgres stopped it on its way out even while another one used it (a server started
// during a long CLI command answered /readyz 503 once the command ended), and a process that found
// Postgres running never stopped it (after a SIGKILL of the service alone, the next start adopted
// the orphan and left it running after a clean stop). Rule: the last process to leave stops it.
// Postgres runs in a session of its own, so a Ctrl-C meant for one process never reaches it.
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  bootService,
  freshDataDir,
  readyz,
  removeDataDirs,
  serviceEnv,
  waitUntil,
} from '../support/embedded-service.ts';
import { type Child, isAlive, killStartedChildren, postmasterPid, startNode } from '../support/processes.ts';

const BOOT_MS = 45_000;
const STOP_MS = 25_000; // main.ts forces exit(1) after 20 s
const TEST_MS = 60_000;
const CLI_CHILD = ['--import', 'tsx', path.join('test', 'support', 'embedded-cli-child.ts')];

afterAll(async () => {
  await killStartedChildren();
  await removeDataDirs();
});

/** A Postgres-only CLI command that holds the embedded Postgres until closeCli. */
async function openCli(env: Record<string, string>): Promise<Child> {
  const cli = startNode(CLI_CHILD, env, { ipc: true });
  await cli.waitFor('cli: postgres open', BOOT_MS);
  return cli;
}

async function closeCli(cli: Child): Promise<void> {
  cli.proc.send?.('close');
  expect(await cli.waitExit(STOP_MS), cli.stderr()).toEqual({ code: 0, signal: null });
}

async function stopService(svc: Child): Promise<void> {
  svc.proc.kill('SIGTERM');
  expect(await svc.waitExit(STOP_MS), svc.stderr()).toEqual({ code: 0, signal: null });
  expect(svc.stdout()).toContain('"msg":"stopped"');
}

/** Postgres still serves the service, whose clean stop then stops it (the last process out). */
async function expectServedThenStoppedLast(svc: Child, env: Record<string, string>, pgPid: number): Promise<void> {
  expect(isAlive(pgPid)).toBe(true);
  expect(await readyz(Number(env.PORT))).toBe(200);
  await stopService(svc);
  await waitUntil(() => !isAlive(pgPid), 10_000, 'the postmaster stopped').catch(() => {});
  expect(isAlive(pgPid)).toBe(false);
}

describe('the embedded Postgres shared by the processes on one DATA_DIR', () => {
  it(
    'when the service alone was SIGKILLed and the next start adopted its Postgres, then a clean stop stops that Postgres too',
    async () => {
      const dataDir = await freshDataDir();
      const env = await serviceEnv(dataDir);
      const first = await bootService(env, BOOT_MS);
      const pgPid = postmasterPid(dataDir) as number;
      first.proc.kill('SIGKILL'); // the node process only, as the OOM killer does
      await first.waitExit(10_000);
      expect(isAlive(pgPid)).toBe(true);

      const second = await bootService(env, BOOT_MS);
      expect(second.stdout()).toContain('embedded postgres already running; connecting to it');
      await stopService(second);

      await waitUntil(() => !isAlive(pgPid), 10_000, 'the adopted postmaster stopped').catch(() => {});
      expect(isAlive(pgPid), 'embedded Postgres left running after a clean stop').toBe(false);
      expect(postmasterPid(dataDir)).toBeUndefined();
    },
    TEST_MS,
  );

  it(
    'when a server starts while a CLI command holds the Postgres the CLI started, then the command ending leaves it to the server, which stops it last',
    async () => {
      const dataDir = await freshDataDir();
      const env = await serviceEnv(dataDir);
      const cli = await openCli(env);
      const pgPid = postmasterPid(dataDir) as number;
      const svc = await bootService(env, BOOT_MS);
      expect(svc.stdout()).toContain('embedded postgres already running; connecting to it');

      await closeCli(cli);

      expect(cli.stdout()).toContain('embedded postgres left running: other processes use it');
      await expectServedThenStoppedLast(svc, env, pgPid);
    },
    TEST_MS,
  );

  it(
    "when Ctrl-C stops a CLI command whose Postgres a server adopted, then Postgres keeps serving the server (it is not in the command's process group)",
    async () => {
      const dataDir = await freshDataDir();
      const env = await serviceEnv(dataDir);
      // A terminal's foreground job: the command leads a process group of its own.
      const cli = startNode(CLI_CHILD, env, { ipc: true, detached: true });
      await cli.waitFor('cli: postgres open', BOOT_MS);
      const pgPid = postmasterPid(dataDir) as number;
      const svc = await bootService(env, BOOT_MS);
      expect(svc.stdout()).toContain('embedded postgres already running; connecting to it');

      process.kill(-(cli.proc.pid as number), 'SIGINT');
      expect((await cli.waitExit(STOP_MS)).signal).toBe('SIGINT');
      await new Promise((resolve) => setTimeout(resolve, 1000));

      await expectServedThenStoppedLast(svc, env, pgPid);
    },
    TEST_MS,
  );

  it(
    'when Ctrl-C stops a CLI command that started the embedded Postgres, then the command stops it on its way out (exit 130)',
    async () => {
      const dataDir = await freshDataDir();
      const env = { ...(await serviceEnv(dataDir)), LOG_LEVEL: 'info' };
      const cli = startNode(['bin/attribution.mjs', 'projects', 'list'], env, { detached: true });
      await waitUntil(() => cli.stderr().includes('embedded postgres started'), BOOT_MS, 'the CLI started Postgres');
      const pgPid = postmasterPid(dataDir) as number;

      process.kill(-(cli.proc.pid as number), 'SIGINT');

      expect(await cli.waitExit(STOP_MS), cli.stderr()).toEqual({ code: 130, signal: null });
      expect(isAlive(pgPid)).toBe(false);
      expect(postmasterPid(dataDir)).toBeUndefined();
    },
    TEST_MS,
  );

  it(
    'when the server stops while a CLI command uses its Postgres, then Postgres stays up for the command, which stops it last',
    async () => {
      const dataDir = await freshDataDir();
      const env = await serviceEnv(dataDir);
      const svc = await bootService(env, BOOT_MS);
      const pgPid = postmasterPid(dataDir) as number;
      const cli = await openCli(env);
      expect(cli.stdout()).toContain('embedded postgres already running; connecting to it');

      await stopService(svc);

      expect(svc.stdout()).toContain('embedded postgres left running: other processes use it');
      expect(isAlive(pgPid)).toBe(true);
      await closeCli(cli);
      await waitUntil(() => !isAlive(pgPid), 10_000, 'the postmaster stopped').catch(() => {});
      expect(isAlive(pgPid)).toBe(false);
      expect(postmasterPid(dataDir)).toBeUndefined();
    },
    TEST_MS,
  );
});
