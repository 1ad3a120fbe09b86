// The service under test, as a child process: `node --import tsx src/main.ts`, like `npm start`.
// Embedded mode (default): a fresh temp DATA_DIR, free ports, the first-start banner gives the
// project. Service mode (DATABASE_URL, CLICKHOUSE_URL and REDIS_URL all set): the URLs are passed
// through and the bench makes its own project with the CLI. Either way LOG_LEVEL=warn and
// RATE_LIMITS_ENABLED=false: the bench measures the work, not the limiter refusing it.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../../src/lib/paths.ts';
import { capiSink } from './capi-sink.ts';
import { type Child, startNodeChild, stopChild, tail } from './child.ts';
import { descendants, type Layout, pinProcess } from './layout.ts';
import { freePort } from './ports.ts';

export type ServiceMode = 'embedded' | 'service';

/** Settings the bench passes through in service mode; every other service setting is the bench's. */
const STORE_URLS = ['DATABASE_URL', 'CLICKHOUSE_URL', 'REDIS_URL'] as const;
const PASS_THROUGH = [...STORE_URLS, 'CLICKHOUSE_USER', 'CLICKHOUSE_PASSWORD', 'CLICKHOUSE_DATABASE'] as const;

const RUN_SECRETS_KEY = randomBytes(32).toString('hex');

export const SERVICE_SETTINGS = { LOG_LEVEL: 'warn', RATE_LIMITS_ENABLED: 'false' } as const;

export function detectMode(env: NodeJS.ProcessEnv): { mode: ServiceMode; note?: string } {
  const set = STORE_URLS.filter((k) => (env[k] ?? '').trim() !== '');
  if (set.length === STORE_URLS.length) {
    return { mode: 'service' };
  }
  const note =
    set.length > 0 ? `only ${set.join(', ')} set: service mode needs all three, so the bench runs embedded` : undefined;
  return { mode: 'embedded', note };
}

export type Credentials = { projectId: string; token: string; serverKey: string };

export type RunningService = {
  mode: ServiceMode;
  url: string;
  /** Host header of the service's own host (PUBLIC_URL), where links work without a domain. */
  host: string;
  pid: number;
  dataDir: string;
  pgUrl: string;
  /** Set in embedded mode: the first-start banner's project. */
  banner: Credentials | undefined;
  output: () => string;
  stop: () => Promise<{ ms: number; killed: boolean; code: number | null }>;
};

const BANNER = /project id:\s+(\S+)[\s\S]*?project token:\s+(\S+)[\s\S]*?server key:\s+(\S+)/;

async function waitReady(child: Child, url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let gone = false;
  void child.exited.then(() => {
    gone = true;
  });
  while (Date.now() < deadline) {
    if (gone) {
      throw new Error(`the service exited while starting${tail(child.output())}`);
    }
    const res = await fetch(`${url}/readyz`).catch(() => undefined);
    if (res?.status === 200) {
      return;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the service was not ready after ${timeoutMs} ms${tail(child.output())}`);
}

function postmasterPid(dataDir: string): number | undefined {
  const file = path.join(dataDir, 'postgres', 'postmaster.pid');
  const pid = existsSync(file) ? Number(readFileSync(file, 'utf8').split('\n')[0]) : Number.NaN;
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The embedded Postgres outlives a service that was killed: stop it (it is ours, by its pid file). */
async function stopOrphanPostgres(dataDir: string): Promise<void> {
  const pid = postmasterPid(dataDir);
  if (pid === undefined || !isAlive(pid)) {
    return;
  }
  process.kill(pid, 'SIGINT');
  for (let i = 0; i < 100 && isAlive(pid); i++) {
    await new Promise((r) => setTimeout(r, 100));
  }
  if (isAlive(pid)) {
    process.kill(pid, 'SIGKILL');
  }
}

function tryPin(pid: number, cpu: number): void {
  try {
    pinProcess(pid, cpu);
  } catch {
    // a backend that exited meanwhile
  }
}

function childEnv(
  mode: ServiceMode,
  dataDir: string,
  port: number,
  pgPort: number,
  metaGraphBaseUrl: string,
): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: `http://localhost:${port}`,
    DATA_DIR: dataDir,
    EMBEDDED_PG_PORT: String(pgPort),
    // Meta deliveries go to the bench's fake Conversions API (the `deliveries` workload).
    META_GRAPH_BASE_URL: metaGraphBaseUrl,
    ...SERVICE_SETTINGS,
  };
  if (mode === 'service') {
    for (const k of PASS_THROUGH) {
      const v = process.env[k];
      if (v) {
        env[k] = v;
      }
    }
    // Required with DATABASE_URL (ROLE=all refuses to start without it). Without one set, the run
    // seals its own project's secrets (the deliveries workload's Meta token) under a key of its own.
    env.SECRETS_KEY = process.env.SECRETS_KEY || RUN_SECRETS_KEY;
  }
  return env;
}

/**
 * Starts the service; its whole output (stdout and stderr) also goes to logFile. `reuseDir` restarts
 * it on a DATA_DIR an earlier start made (no banner then; the caller keeps and removes the directory).
 */
export async function startBenchService(
  mode: ServiceMode,
  layout: Layout,
  logFile: string,
  reuseDir?: string,
): Promise<RunningService> {
  const dataDir = reuseDir ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'attribution-bench-')));
  // Embedded Postgres runs as the 'postgres' user when we are root; it must reach the directory.
  await fs.chmod(dataDir, 0o755);
  const [port, pgPort] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${port}`;
  const env = childEnv(mode, dataDir, port, pgPort, (await capiSink()).url);
  const child = startNodeChild('service', path.join(ROOT, 'src/main.ts'), env, layout.serverCpu, logFile);
  const stop = async () => {
    const r = await stopChild(child, 40_000);
    await stopOrphanPostgres(dataDir);
    return { ms: r.ms, killed: r.killed, code: r.exit.code };
  };
  try {
    await waitReady(child, url, 180_000);
    const m = mode === 'embedded' ? child.output().match(BANNER) : null;
    if (mode === 'embedded' && !m && reuseDir === undefined) {
      throw new Error(`no first-start banner in the service output${tail(child.output())}`);
    }
    const pm = postmasterPid(dataDir);
    if (layout.pinned && layout.loadCpu !== undefined && pm !== undefined) {
      for (const pid of [pm, ...descendants(pm)]) {
        tryPin(pid, layout.loadCpu);
      }
    }
    return {
      mode,
      url,
      host: `localhost:${port}`,
      pid: child.pid,
      dataDir,
      pgUrl:
        mode === 'embedded' ? `postgres://postgres:postgres@127.0.0.1:${pgPort}/postgres` : String(env.DATABASE_URL),
      banner: m ? { projectId: String(m[1]), token: String(m[2]), serverKey: String(m[3]) } : undefined,
      output: child.output,
      stop,
    };
  } catch (err) {
    await stop().catch(() => {});
    if (reuseDir === undefined) {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
    throw err;
  }
}
