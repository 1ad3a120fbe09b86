// Test harness: one Deps per test process (chdb allows one engine per process) against the shared
// test Postgres, a private ClickHouse dir, and Redis when the run has one. Each test makes its own
// project with newProject() and asserts only on its own rows.
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import postgres from 'postgres';
import { afterAll, beforeAll, inject } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { closeDeps, createDeps, type Deps } from '../../src/deps.ts';
import { createProject } from '../../src/domain/projects/create-project.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { CH_MIGRATIONS } from '../../src/lib/paths.ts';
import { type ClickHouseClient, createEmbeddedClickHouse } from '../../src/store/clickhouse/client.ts';
import { migrateClickHouse } from '../../src/store/clickhouse/migrate.ts';
import type { Project } from '../../src/store/postgres/projects.ts';

export type Harness = { app: FastifyInstance; deps: Deps };

let processDb: Promise<string> | undefined;

/**
 * This process's own database, cloned from the run's migrated template. Facts wait in a shared
 * outbox table until a writer moves them to ClickHouse, and each test process has its own
 * ClickHouse engine, so processes must not share the outbox.
 */
export function processDatabaseUrl(): Promise<string> {
  processDb ??= (async () => {
    const template = new URL(inject('templateDatabaseUrl'));
    const templateName = template.pathname.slice(1);
    const name = `${templateName.replace('_tpl_', '_p_')}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    const admin = postgres(inject('databaseUrl'), { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe(`CREATE DATABASE "${name}" TEMPLATE "${templateName}"`);
    } finally {
      await admin.end();
    }
    template.pathname = `/${name}`;
    return template.toString();
  })();
  return processDb;
}

export async function testEnv(extra: Record<string, string> = {}): Promise<Record<string, string | undefined>> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'attribution-test-'));
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    DATABASE_URL: await processDatabaseUrl(),
    PUBLIC_URL: 'https://attr.test',
    // Parallel test files share 127.0.0.1; the per-IP limit has its own test with its own IPs.
    RATE_LIMIT_IP_PER_SECOND: '1000000',
    ...extra,
  };
}

let clickhouse: Promise<ClickHouseClient> | undefined;

/** The process's one ClickHouse engine (chdb), in a private temp dir. */
export function testClickHouse(): Promise<ClickHouseClient> {
  clickhouse ??= (async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'attribution-test-ch-'));
    return createEmbeddedClickHouse(dir);
  })();
  return clickhouse;
}

/** testClickHouse() with every ClickHouse migration applied (tests of the tables themselves). */
export async function migratedTestClickHouse(): Promise<ClickHouseClient> {
  const ch = await testClickHouse();
  await migrateClickHouse(ch, CH_MIGRATIONS);
  return ch;
}

/** A statement's rows as JSON objects. */
export async function chJson<T>(
  ch: ClickHouseClient,
  query: string,
  params: Record<string, unknown> = {},
): Promise<T[]> {
  return (await ch.query({ query, format: 'JSONEachRow', query_params: params })).json<T>();
}

/** Deps and app over the test stores. `redis: true` adds the run's Redis (BullMQ, shared limits). */
export async function makeHarness(opts: { redis?: boolean; env?: Record<string, string> } = {}): Promise<Harness> {
  const env = await testEnv(opts.env);
  if (opts.redis) {
    env.REDIS_URL = inject('redisUrl');
  }
  const config = loadConfig(env);
  const deps = await createDeps(config, createLogger('silent'), { migrate: true, clickhouse: await testClickHouse() });
  const app = await buildApp(deps);
  await app.ready();
  return { app, deps };
}

/** buildApp over the harness's stores with some replaced (a store that fails, a logger); closes the app afterwards. */
export async function withAppOver<T>(
  h: Harness,
  replace: Partial<Deps>,
  run: (app: FastifyInstance) => Promise<T>,
): Promise<T> {
  const app = await buildApp({ ...h.deps, ...replace });
  try {
    return await run(app);
  } finally {
    await app.close();
  }
}

export async function closeHarness(h: Harness): Promise<void> {
  await h.app.close();
  await closeDeps(h.deps);
}

/** Registers a harness for the enclosing file or describe block; call the getter inside tests. */
export function useHarness(opts: { redis?: boolean; env?: Record<string, string> } = {}): () => Harness {
  let h: Harness | undefined;
  beforeAll(async () => {
    h = await makeHarness(opts);
  });
  afterAll(async () => {
    if (h) {
      await closeHarness(h);
    }
  });
  return () => {
    if (!h) {
      throw new Error('harness not ready: call the getter inside a test or hook');
    }
    return h;
  };
}

export type TestProject = {
  project: Project;
  serverKey: string;
  token: string;
  headers: { 'service-key': string };
};

let counter = 0;
export async function newProject(
  deps: Deps,
  opts: { timezone?: string; currency?: string } = {},
): Promise<TestProject> {
  counter += 1;
  const { project, serverKey } = await createProject(deps, {
    name: `test project ${process.pid}-${counter}`,
    timezone: opts.timezone,
    currency: opts.currency,
  });
  return { project, serverKey, token: project.token, headers: { 'service-key': serverKey } };
}
