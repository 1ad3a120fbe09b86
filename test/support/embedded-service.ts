// The service run as `npm start` in embedded mode for end-to-end tests of its embedded Postgres:
// a fresh DATA_DIR each (reachable by the 'postgres' user when we run as root), its own ports, the
// process in its own group (cleanup then reaches the Postgres it starts), and the first-start banner.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Child, cleanEnv, freePort, isAlive, postmasterPid, startNode } from './processes.ts';

export const SERVICE = ['--import', 'tsx', 'src/main.ts'];

const dirs: string[] = [];

/** A new empty DATA_DIR (not created yet) under a temp dir that removeDataDirs deletes. */
export async function freshDataDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'attribution-e2e-pg-'));
  await chmod(dir, 0o755);
  dirs.push(dir);
  return path.join(dir, 'data');
}

/**
 * Deletes the temp dirs, first stopping a postmaster still running on one: a test that SIGKILLs
 * only the node process, or fails half-way, leaves it outside every process group we started.
 */
export async function removeDataDirs(): Promise<void> {
  for (const d of dirs.splice(0)) {
    const pid = postmasterPid(path.join(d, 'data'));
    if (pid !== undefined && isAlive(pid)) {
      process.kill(pid, 'SIGINT');
      await waitUntil(() => !isAlive(pid), 10_000, 'a left-over postmaster stopped').catch(() => {});
    }
    await rm(d, { recursive: true, force: true });
  }
}

export async function serviceEnv(dataDir: string, extra: Record<string, string> = {}): Promise<Record<string, string>> {
  return cleanEnv({
    DATA_DIR: dataDir,
    PORT: String(await freePort()),
    EMBEDDED_PG_PORT: String(await freePort()),
    LOG_LEVEL: 'info',
    ...extra,
  });
}

/** `npm start` in its own process group. */
export function startService(env: Record<string, string>): Child {
  return startNode(SERVICE, env, { detached: true });
}

/** Resolves with 'listening' or with how the service exited, whichever comes first. */
export async function startOutcome(svc: Child, timeoutMs: number): Promise<string> {
  return Promise.race([
    svc.waitFor('Server listening', timeoutMs).then(
      () => 'listening',
      () => new Promise<never>(() => {}), // exited first: the other branch answers
    ),
    svc.waitExit(timeoutMs).then((e) => `exited ${e.code ?? e.signal}`),
  ]);
}

/** Starts the service and resolves once /readyz answers 200. */
export async function bootService(env: Record<string, string>, timeoutMs: number): Promise<Child> {
  const svc = startService(env);
  const outcome = await startOutcome(svc, timeoutMs);
  if (outcome !== 'listening') {
    throw new Error(`the service did not start (${outcome}):\n${svc.stderr().slice(-3000)}`);
  }
  await waitUntil(async () => (await readyz(Number(env.PORT))) === 200, 10_000, '/readyz answered 200');
  return svc;
}

export async function waitUntil(
  cond: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) {
      throw new Error(`${what}: not after ${timeoutMs} ms`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The status of GET /readyz (200 once Postgres and ClickHouse answer). */
export async function readyz(port: number): Promise<number> {
  return (await fetch(`http://127.0.0.1:${port}/readyz`)).status;
}
