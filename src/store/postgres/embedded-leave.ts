// Leaving the embedded Postgres: the last process to leave stops it (embedded-presence.ts tells who
// else uses it), deciding under DATA_DIR/postgres.lock (embedded-lock.ts). Also on a forced exit
// (a second Ctrl-C, a shutdown past its deadline), which skips closing the stores: the postmaster
// runs in a session of its own, so such an exit left it running with nobody to stop it.
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { OwnPostmaster } from './embedded-cluster.ts';
import { alive, EmbeddedLockTimeout, withEmbeddedLock } from './embedded-lock.ts';
import { otherProcessesOn, type Presence } from './embedded-presence.ts';

/** A stop runs inside the 20 s shutdown budget (src/main.ts), with Postgres last. */
const STOP_WAIT_MS = 8_000;
/** What a forced exit spends on an embedded Postgres: waiting for the lock, then for its stop. */
const FORCED_LOCK_MS = 1_000;
const FORCED_STOP_MS = 5_000;

export const embeddedUrl = (port: number): string => `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;

/**
 * The postmasters this process started or adopted and has not left yet, with their DATA_DIR and,
 * once leave() is deciding, what it decided (as a forced exit says it).
 */
type Use = { dataDir: string; leaving?: Promise<string> };
const inUse = new Map<OwnPostmaster, Use>();

export function registerUse(postmaster: OwnPostmaster, dataDir: string): void {
  inUse.set(postmaster, { dataDir });
}

export function dropUse(postmaster: OwnPostmaster): void {
  inUse.delete(postmaster);
}

const described = (dataDir: string, pid: number) =>
  `the embedded Postgres (pid ${pid}, data in ${path.join(dataDir, 'postgres')})`;

const stoppedLine = (what: string, pid: number) =>
  alive(pid)
    ? `${what} was told to stop (no other process uses it) and is still stopping`
    : `stopped ${what}: no other process used it`;

/** Stops Postgres unless another process still uses it; says what it did, in a line. */
async function decide(dataDir: string, postmaster: OwnPostmaster, presence: Presence, log: Logger): Promise<string> {
  const what = described(dataDir, postmaster.pid);
  try {
    return await withEmbeddedLock(dataDir, STOP_WAIT_MS, async () => {
      // Not answering means Postgres is stopping or gone (Ctrl-C reached it too): nobody is left on it.
      const others = await presence.others().catch(() => []);
      await presence.leave();
      if (others.length > 0) {
        log.info({ port: postmaster.port, others }, 'embedded postgres left running: other processes use it');
        return `${what} is left running: other processes use it (${others.join(', ')})`;
      }
      await postmaster.stop();
      return stoppedLine(what, postmaster.pid);
    });
  } catch (err) {
    if (!(err instanceof EmbeddedLockTimeout)) {
      throw err;
    }
    await presence.leave();
    log.warn({ err: err.message }, 'embedded postgres left running');
    return `${what} is left running: another process is starting or stopping it`;
  }
}

/** Leaves the Postgres: stops it unless another process still uses it (see the file header). */
export async function leave(
  dataDir: string,
  postmaster: OwnPostmaster,
  presence: Presence,
  log: Logger,
): Promise<void> {
  const use = inUse.get(postmaster);
  if (!use) {
    await presence.leave(); // a forced exit is seeing to it
    return;
  }
  const leaving = decide(dataDir, postmaster, presence, log);
  use.leaving = leaving.catch(
    (err: Error) => `${described(dataDir, postmaster.pid)}: its stop failed (${err.message})`,
  );
  try {
    await leaving;
  } finally {
    inUse.delete(postmaster);
  }
}

/** On a forced exit, with nothing deciding yet: stops Postgres unless another process uses it. */
async function stopForExit(dataDir: string, postmaster: OwnPostmaster): Promise<string | undefined> {
  const { pid, port } = postmaster;
  if (!alive(pid)) {
    return undefined;
  }
  const what = described(dataDir, pid);
  try {
    return await withEmbeddedLock(dataDir, FORCED_LOCK_MS, async () => {
      const others = await otherProcessesOn(embeddedUrl(port));
      if (others.length > 0) {
        return `${what} is left running: other processes use it (${others.join(', ')})`;
      }
      process.kill(pid, 'SIGINT'); // fast shutdown
      const end = Date.now() + FORCED_STOP_MS;
      while (alive(pid) && Date.now() < end) {
        await sleep(50);
      }
      return stoppedLine(what, pid);
    });
  } catch (err) {
    const why =
      err instanceof EmbeddedLockTimeout
        ? 'another process is starting or stopping it'
        : `could not ask whether other processes use it (${(err as Error).message})`;
    return `${what} is left running: ${why}; the next process to start on this DATA_DIR uses it, and the last one to leave stops it`;
  }
}

/**
 * For a forced exit: stops each Postgres this process started or adopted, unless another
 * attribution process uses it, waiting a few seconds for it to exit (a restart right after finds
 * it gone). The lock is waited for briefly only: its holder is starting or stopping that Postgres,
 * and it is left to that one. A leave() already deciding is waited for instead. Returns what to
 * say on stderr, a line per Postgres.
 */
export async function stopEmbeddedOnForcedExit(): Promise<string[]> {
  const said: string[] = [];
  for (const [postmaster, use] of inUse) {
    inUse.delete(postmaster); // a leave() from now on leaves it to this
    const undecided = `${described(use.dataDir, postmaster.pid)} is left running: this process was still deciding whether other processes use it`;
    const line = use.leaving
      ? await Promise.race([use.leaving, sleep(FORCED_LOCK_MS + FORCED_STOP_MS, undecided)])
      : await stopForExit(use.dataDir, postmaster);
    if (line) {
      said.push(line);
    }
  }
  return said;
}
