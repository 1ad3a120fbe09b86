// Two independent app instances (each its own Postgres pool, Redis connections, rate-limit store and
// queue) over one Postgres and one Redis db, as README "Roles and scaling out" runs them. They share
// this process's one ClickHouse engine (chdb allows one per process). Service mode only: the tests
// skip without TEST_REDIS_URL.
import { afterAll, beforeAll, inject } from 'vitest';
import { startWorkers } from '../../jobs/worker.ts';
import { processRedisUrl } from '../support/client.ts';
import { closeHarness, type Harness, makeHarness } from '../support/harness.ts';

export const hasRedis = Boolean(inject('redisUrl'));

/**
 * Builds the two instances before the file's tests (`use` receives them) and closes them after;
 * `workers` also starts each one's workers (queues, fact writers, cron).
 */
export function useTwoInstances(
  env: Record<string, string>,
  use: (a: Harness, b: Harness) => void,
  opts: { workers?: boolean } = {},
): void {
  const built: Harness[] = [];
  const stops: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    if (!hasRedis) {
      return;
    }
    const withRedis = { ...env, REDIS_URL: processRedisUrl() ?? '' };
    built.push(await makeHarness({ env: withRedis }), await makeHarness({ env: withRedis }));
    const [a, b] = built as [Harness, Harness];
    if (opts.workers) {
      stops.push(await startWorkers(a.deps), await startWorkers(b.deps));
    }
    use(a, b);
  });
  afterAll(async () => {
    for (const stop of stops) {
      await stop();
    }
    for (const h of built) {
      await closeHarness(h);
    }
  });
}
