// Service-mode processes split by ROLE, started as README "Roles and scaling out" runs them
// (`node --import tsx src/main.ts` with ROLE=api|worker|all), over a fresh, empty Postgres database,
// a private redis-server and a ClickHouse reached over HTTP (test/support/ch-front.ts). Service mode
// only: the files skip without TEST_REDIS_URL (as the other scale-out tests) or a redis-server binary.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { inject } from 'vitest';
import { type PrivateRedis, redisUnavailable, startPrivateRedis } from '../faults/support/redis.ts';
import { type Front, startClickHouseFront } from '../support/ch-front.ts';
import { type Child, cleanEnv, freePort, startNode } from '../support/processes.ts';

/** Service-mode test runs (TEST_REDIS_URL) on a machine that can start a private redis-server. */
export const canRunRoles = Boolean(inject('redisUrl')) && redisUnavailable() === undefined;

export const CH_USER = 'attr';
export const CH_PASSWORD = 'ch-secret-1';

export type Stack = {
  databaseUrl: string;
  redis: PrivateRedis;
  sql: postgres.Sql;
  secretsKey: string;
  close: () => Promise<void>;
};

/** A fresh, empty database (no migrations) and a private Redis. */
export async function freshStack(): Promise<Stack> {
  const admin = postgres(inject('databaseUrl'), { max: 1, onnotice: () => {} });
  const name = `roles_${process.pid}_${randomBytes(4).toString('hex')}`;
  await admin.unsafe(`CREATE DATABASE "${name}"`);
  const u = new URL(inject('databaseUrl'));
  u.pathname = `/${name}`;
  const databaseUrl = u.toString();
  const sql = postgres(databaseUrl, { max: 2, onnotice: () => {} });
  const redis = await startPrivateRedis();
  return {
    databaseUrl,
    redis,
    sql,
    secretsKey: randomBytes(32).toString('hex'),
    close: async () => {
      await sql.end({ timeout: 2 });
      await redis.close();
      await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => {});
      await admin.end();
    },
  };
}

export type RoleProc = {
  role: string;
  child: Child;
  port: number;
  baseUrl: string;
  dataDir: string;
  /** JSON log lines of the child (pino), parsed. */
  logs: () => Record<string, unknown>[];
  stop: (signal?: NodeJS.Signals) => Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
};

const tracked: RoleProc[] = [];

export async function startRole(
  role: 'api' | 'worker' | 'all' | undefined,
  env: Record<string, string>,
  opts: { port?: number } = {},
): Promise<RoleProc> {
  const port = opts.port ?? (await freePort());
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'roles-data-'));
  const child = startNode(
    ['--import', 'tsx', 'src/main.ts'],
    cleanEnv({
      ...(role ? { ROLE: role } : {}),
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      PUBLIC_URL: 'https://attr.test',
      RATE_LIMITS_ENABLED: 'false',
      ...env,
    }),
  );
  const logs = () =>
    child
      .stdout()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => {
        try {
          return JSON.parse(l) as Record<string, unknown>;
        } catch {
          return {};
        }
      });
  const p: RoleProc = {
    role: role ?? 'all',
    child,
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    dataDir,
    logs,
    stop: async (signal = 'SIGTERM') => {
      if (child.proc.exitCode === null && child.proc.signalCode === null) {
        child.proc.kill(signal);
      }
      const exit = await child.waitExit(30_000);
      await rm(dataDir, { recursive: true, force: true });
      return exit;
    },
  };
  tracked.push(p);
  return p;
}

export async function cleanupRoles(): Promise<void> {
  for (const p of tracked.splice(0)) {
    if (p.child.proc.exitCode === null && p.child.proc.signalCode === null) {
      p.child.proc.kill('SIGKILL');
      await p.child.waitExit(10_000).catch(() => {});
    }
    await rm(p.dataDir, { recursive: true, force: true });
  }
}

/** Waits until a log line has msg `msg` (pino JSON on stdout). */
export async function waitForLog(p: RoleProc, msg: string, timeoutMs: number): Promise<void> {
  await p.child.waitFor(`"msg":"${msg}"`, timeoutMs);
}

export type Banner = { projectId: string; token: string; serverKey: string };

export function banner(stdout: string): Banner | undefined {
  const projectId = /project id:\s+(\S+)/.exec(stdout)?.[1];
  const token = /project token:\s+(pt_\S+)/.exec(stdout)?.[1];
  const serverKey = /server key:\s+(sk_\S+)/.exec(stdout)?.[1];
  return projectId && token && serverKey ? { projectId, token, serverKey } : undefined;
}

export async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) {
      throw new Error(`timed out waiting until ${what}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

export type RoleStores = { front: Front; stack: Stack; env: Record<string, string> };

/** A ClickHouse front with credentials, a fresh database and Redis, and the env naming them. */
export async function openRoleStores(): Promise<RoleStores> {
  const front = await startClickHouseFront({ user: CH_USER, password: CH_PASSWORD });
  const stack = await freshStack();
  const env = {
    DATABASE_URL: stack.databaseUrl,
    REDIS_URL: stack.redis.url,
    CLICKHOUSE_URL: front.url,
    CLICKHOUSE_USER: CH_USER,
    CLICKHOUSE_PASSWORD: CH_PASSWORD,
    SECRETS_KEY: stack.secretsKey,
  };
  return { front, stack, env };
}

/** Stops the role processes the file started, then its stores. */
export async function closeRoleStores(s: Partial<RoleStores>): Promise<void> {
  await cleanupRoles();
  await s.stack?.close();
  await s.front?.close();
}
