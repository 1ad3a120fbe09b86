// Global setup: Postgres from TEST_DATABASE_URL when it answers (CI points it at the machine's
// server), else a private embedded Postgres in a temp dir; Redis from TEST_REDIS_URL when it
// answers, else none (BullMQ tests then skip with the reason). It stops only what it started.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pino from 'pino';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { PG_MIGRATIONS } from '../../src/lib/paths.ts';
import { runningPostmaster, startEmbeddedPostgres } from '../../src/store/postgres/embedded.ts';
import { migratePostgres } from '../../src/store/postgres/migrate.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    templateDatabaseUrl: string;
    redisUrl: string | undefined;
  }
}

/** Each test process gets its own database cloned from this run's migrated template (harness). */
export const RUN_DB_PREFIX = 'attribution_test_';

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

async function postgresAnswers(url: string): Promise<boolean> {
  const sql = postgres(url, { max: 1, connect_timeout: 3, onnotice: () => {} });
  try {
    await sql`SELECT 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

async function redisAnswers(url: string): Promise<boolean> {
  const r = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 2000,
    retryStrategy: () => null,
  });
  try {
    await r.connect();
    return (await r.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

/**
 * The embedded Postgres runs in a session of its own, so a Ctrl-C that ends the run (vitest runs no
 * teardown then) no longer reaches it: it is told to stop here, at once (its pid file names it),
 * and the signal is raised again for vitest when nothing else listens to it.
 */
function stopPostgresOnSignals(dataDir: string): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    const onSignal = () => {
      process.removeListener(signal, onSignal);
      const postmaster = runningPostmaster(path.join(dataDir, 'postgres'));
      if (postmaster) {
        try {
          process.kill(postmaster.pid, 'SIGINT'); // fast shutdown
        } catch {}
      }
      if (process.listenerCount(signal) === 0) {
        process.kill(process.pid, signal);
      }
    };
    process.on(signal, onSignal);
  }
}

export async function setup(project: TestProject): Promise<() => Promise<void>> {
  const log = pino({ level: 'warn' });
  const cleanups: (() => Promise<unknown>)[] = [];
  let databaseUrl = process.env.TEST_DATABASE_URL;
  if (databaseUrl && !(await postgresAnswers(databaseUrl))) {
    process.stderr.write(`TEST_DATABASE_URL does not answer; using an embedded Postgres\n`);
    databaseUrl = undefined;
  }
  if (databaseUrl) {
    const dbName = new URL(databaseUrl).pathname.slice(1);
    if (!dbName.includes('test')) {
      throw new Error(`TEST_DATABASE_URL must name a database whose name contains 'test' (got '${dbName}')`);
    }
  } else {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'attribution-test-pg-'));
    await chmod(dir, 0o755);
    const pg = await startEmbeddedPostgres(dir, await freePort(), log, 'test');
    databaseUrl = pg.url;
    cleanups.push(() => rm(dir, { recursive: true, force: true }), pg.stop);
    stopPostgresOnSignals(dir);
  }
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  await migratePostgres(sql, PG_MIGRATIONS);
  // The fact outbox is shared by table, so processes with their own ClickHouse engine must not
  // share a database: the template is migrated once, and each process clones it.
  const runId = `${process.pid}_${Date.now().toString(36)}`;
  const template = `${RUN_DB_PREFIX}tpl_${runId}`;
  await sql.unsafe(`CREATE DATABASE "${template}"`);
  const tpl = postgres(withDatabase(databaseUrl, template), { max: 1, onnotice: () => {} });
  await migratePostgres(tpl, PG_MIGRATIONS);
  await tpl.end();
  await sql.end();
  const adminUrl = databaseUrl;
  cleanups.push(async () => {
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    const dbs = await admin<{ datname: string }[]>`
      SELECT datname FROM pg_database WHERE datname LIKE ${`${RUN_DB_PREFIX}%${runId}%`}`;
    for (const d of dbs) {
      await admin.unsafe(`DROP DATABASE IF EXISTS "${d.datname}" WITH (FORCE)`);
    }
    await admin.end();
  });

  let redisUrl = process.env.TEST_REDIS_URL;
  if (redisUrl && !(await redisAnswers(redisUrl))) {
    process.stderr.write(`TEST_REDIS_URL does not answer; Redis-specific tests will skip\n`);
    redisUrl = undefined;
  }
  project.provide('databaseUrl', databaseUrl);
  project.provide('templateDatabaseUrl', withDatabase(databaseUrl, template));
  project.provide('redisUrl', redisUrl);
  return async () => {
    for (const c of cleanups.reverse()) {
      await c();
    }
  };
}
