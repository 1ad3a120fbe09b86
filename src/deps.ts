// createDeps/closeDeps: opens every store the process needs and picks, per store, the service
// (URL configured) or the embedded engine (URL absent). Migrations run here, at start.
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { type Config, StoreSettingError } from './config.ts';
import { createFactAppender, type FactAppender } from './domain/facts/fact-appender.ts';
import { CH_MIGRATIONS, PG_MIGRATIONS } from './lib/paths.ts';
import { createBullQueue, createInProcessQueue, type JobQueue } from './queue/queue.ts';
import {
  type ClickHouseClient,
  checkClickHouse,
  clickHouseSettingError,
  createClickHouse,
  createMigrationClickHouse,
} from './store/clickhouse/client.ts';
import { migrateClickHouse } from './store/clickhouse/migrate.ts';
import { type EmbeddedClient, startEmbeddedPostgres } from './store/postgres/embedded.ts';
import { setLookupCacheTtl } from './store/postgres/lookup-cache.ts';
import { migratePostgres } from './store/postgres/migrate.ts';
import { checkPostgres, createPool, type Sql } from './store/postgres/pool.ts';
import { type Cache, memoryCache, redisCache } from './store/redis/cache.ts';
import { createRedis, waitForRedis } from './store/redis/client.ts';
import { memoryRateLimitStore, type RateLimitStore, redisRateLimitStore } from './store/redis/rate-limit-store.ts';

export type Deps = {
  config: Config;
  log: Logger;
  sql: Sql;
  ch: ClickHouseClient;
  redis: Redis | undefined;
  queue: JobQueue;
  rateLimits: RateLimitStore;
  /** Group-committed appends to the fact outbox (for facts outside a transaction, e.g. clicks). */
  facts: FactAppender;
  /** Final client answers (attribution-data, 24 h): Redis in service mode, memory otherwise. */
  cache: Cache;
  now: () => number;
};

/** What the Postgres-only CLI commands need. */
export type PgDeps = Pick<Deps, 'config' | 'log' | 'sql'>;

type Closer = () => Promise<unknown>;

/**
 * How long shutdown waits for the queue's running jobs. Past it the stores close anyway: a job
 * still running is abandoned as a forced exit would abandon it (BullMQ retries it once its lock
 * lapses; embedded jobs are re-enqueued from Postgres state at the next start). Seen in CI after a
 * Postgres restart: one job never settled and the whole shutdown hit main.ts's 20 s forced exit.
 */
export const QUEUE_CLOSE_MS = 10_000;

/** Waits for `closing` at most `ms`; past that it logs and returns, so the rest of shutdown goes on. */
export async function closeWithin(closing: Promise<unknown>, ms: number, log: Logger, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), ms);
  });
  try {
    if ((await Promise.race([closing.then(() => 'closed' as const), late])) === 'late') {
      log.warn({ what, waitedMs: ms }, 'shutdown: still waiting to close; going on without it');
    }
  } finally {
    clearTimeout(timer);
  }
}
const closers = new WeakMap<object, Closer[]>();

export async function openPostgres(
  config: Config,
  log: Logger,
  onClose: Closer[],
  client: EmbeddedClient = 'server',
): Promise<Sql> {
  let url = config.databaseUrl;
  if (!url) {
    const embedded = await startEmbeddedPostgres(config.dataDir, config.embeddedPgPort, log, client);
    onClose.push(embedded.stop);
    url = embedded.url;
  }
  setLookupCacheTtl(config.lookupCacheTtlMs);
  const sql = createPool(url, config.databasePoolSize);
  onClose.push(() => sql.end({ timeout: 5 }));
  return sql;
}

export async function createPgDeps(
  config: Config,
  log: Logger,
  opts: { migrate: boolean; embeddedClient?: EmbeddedClient },
): Promise<PgDeps> {
  const onClose: Closer[] = [];
  try {
    const sql = await openPostgres(config, log, onClose, opts.embeddedClient);
    if (opts.migrate) {
      await checkStoresAtStart(config, log, sql, undefined);
      await migratePostgres(sql, PG_MIGRATIONS, log);
    }
    const deps = { config, log, sql };
    closers.set(deps, onClose);
    return deps;
  } catch (err) {
    await runClosers(onClose, log);
    throw err;
  }
}

/**
 * The servers' first use at start, before the migrations: settings that parse but name a server
 * this process cannot use (a refused password, no such database, nothing listening) stop the
 * start with one line naming the setting (StoreSettingError); the driver's error, with its stack,
 * goes to the debug log. Embedded stores have no such setting. `ch` is a client this process
 * opened, undefined when it was given one (tests) or needs none (the CLI's Postgres commands).
 */
async function checkStoresAtStart(config: Config, log: Logger, sql: Sql, ch: ClickHouseClient | undefined) {
  try {
    if (config.databaseUrl) {
      await checkPostgres(sql, config.databaseUrl);
    }
    if (ch && config.clickhouse) {
      const server = config.clickhouse;
      await checkClickHouse(ch, true).catch((err) => {
        throw clickHouseSettingError(err, server);
      });
    }
  } catch (err) {
    if (err instanceof StoreSettingError) {
      log.debug({ err: err.cause }, 'a store refused this process at start');
    }
    throw err;
  }
}

export type CreateDepsOptions = {
  migrate: boolean;
  /** An already-open ClickHouse client to share (tests: chdb allows one engine per process). */
  clickhouse?: ClickHouseClient;
  /** Which kind of process uses the embedded Postgres (its connection's application_name); default server. */
  embeddedClient?: EmbeddedClient;
};

/**
 * ClickHouse migrations, through a client without the 30 s timeout when this process opened a
 * server's client (a client it was given, it uses as given).
 */
async function migrateClickHouseOver(
  config: Config,
  ch: ClickHouseClient,
  given: boolean,
  sql: Sql,
  log: Logger,
): Promise<void> {
  const own = given ? undefined : createMigrationClickHouse(config, log);
  try {
    await migrateClickHouse(own ?? ch, CH_MIGRATIONS, sql, log);
  } finally {
    await own?.close();
  }
}

export async function createDeps(config: Config, log: Logger, opts: CreateDepsOptions): Promise<Deps> {
  const onClose: Closer[] = [];
  try {
    const sql = await openPostgres(config, log, onClose, opts.embeddedClient);
    const ch = opts.clickhouse ?? (await createClickHouse(config, log));
    if (!opts.clickhouse) {
      onClose.push(() => ch.close());
    }
    if (opts.migrate) {
      await checkStoresAtStart(config, log, sql, opts.clickhouse ? undefined : ch);
      await migratePostgres(sql, PG_MIGRATIONS, log);
      await migrateClickHouseOver(config, ch, opts.clickhouse !== undefined, sql, log);
    }
    let redis: Redis | undefined;
    let queue: JobQueue;
    if (config.redisUrl) {
      const url = config.redisUrl;
      const r = createRedis(url, 'commands');
      r.on('error', (err) => log.warn({ err: err.message }, 'redis connection error'));
      redis = r;
      await waitForRedis(r).catch((err) => log.error({ err: String(err) }, 'REDIS_URL: Redis is not answering yet'));
      onClose.push(async () => r.quit().catch(() => r.disconnect()));
      const workerConns: Redis[] = [];
      queue = createBullQueue(
        r,
        () => {
          const w = createRedis(url, 'worker');
          w.on('error', (err) => log.warn({ err: err.message }, 'redis worker connection error'));
          workerConns.push(w);
          return w;
        },
        log,
      );
      onClose.push(async () => Promise.all(workerConns.map((w) => w.quit().catch(() => w.disconnect()))));
    } else {
      queue = createInProcessQueue(log);
    }
    // The queue closes first: closers run in reverse order.
    onClose.push(() => closeWithin(queue.close(), QUEUE_CLOSE_MS, log, 'queue workers (jobs still running)'));
    const deps: Deps = {
      config,
      log,
      sql,
      ch,
      redis,
      queue,
      rateLimits: redis ? redisRateLimitStore(redis) : memoryRateLimitStore(),
      facts: createFactAppender(sql),
      cache: redis ? redisCache(redis) : memoryCache(),
      now: Date.now,
    };
    closers.set(deps, onClose);
    return deps;
  } catch (err) {
    await runClosers(onClose, log);
    throw err;
  }
}

async function runClosers(list: Closer[], log: Logger): Promise<void> {
  for (const close of [...list].reverse()) {
    try {
      await close();
    } catch (err) {
      log.warn({ err: String(err) }, 'error while closing a store');
    }
  }
}

export async function closeDeps(deps: PgDeps): Promise<void> {
  const list = closers.get(deps) ?? [];
  closers.delete(deps);
  await runClosers(list, deps.log);
}
