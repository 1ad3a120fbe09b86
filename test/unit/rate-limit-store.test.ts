// Fixed-window rate-limit counters: the in-memory store (embedded mode) and the Redis store
// (service mode; skipped when the run has no Redis). `now` is passed in, so windows are exact.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createRedis, waitForRedis } from '../../src/store/redis/client.ts';
import {
  memoryRateLimitStore,
  type RateLimitStore,
  redisRateLimitStore,
} from '../../src/store/redis/rate-limit-store.ts';

const T0 = 1_700_000_040_000; // a multiple of 1000 and of 60_000

async function hits(store: RateLimitStore, key: string, windowMs: number, times: number[]): Promise<number[]> {
  const out: number[] = [];
  for (const t of times) {
    out.push(await store.hit(key, windowMs, t));
  }
  return out;
}

/** The window semantics both stores must share. `k` makes a key unique to the test. */
function windowSemantics(store: () => RateLimitStore, k: (name: string) => string): void {
  it('when one key is hit three times in a window, then the counts are 1, 2, 3', async () => {
    expect(await hits(store(), k('a'), 1000, [T0, T0 + 10, T0 + 999])).toEqual([1, 2, 3]);
  });

  it('when the next window starts, then the count resets to 1', async () => {
    expect(await hits(store(), k('b'), 1000, [T0 + 500, T0 + 999, T0 + 1000, T0 + 1001])).toEqual([1, 2, 1, 2]);
  });

  it('when a window is skipped entirely, then the count still starts at 1', async () => {
    expect(await hits(store(), k('c'), 1000, [T0, T0 + 1, T0 + 5000])).toEqual([1, 2, 1]);
  });

  it('when two keys are hit in the same window, then each has its own count', async () => {
    const s = store();
    expect(await hits(s, k('d1'), 1000, [T0, T0 + 1, T0 + 2])).toEqual([1, 2, 3]);
    expect(await hits(s, k('d2'), 1000, [T0 + 3])).toEqual([1]);
    expect(await hits(s, k('d1'), 1000, [T0 + 4])).toEqual([4]);
  });

  it('when the window is a minute, then hits 59 s apart share it and the next minute resets', async () => {
    expect(await hits(store(), k('e'), 60_000, [T0, T0 + 59_999, T0 + 60_000])).toEqual([1, 2, 1]);
  });

  it('when hits arrive concurrently, then every count from 1 to n is returned once', async () => {
    const s = store();
    const counts = await Promise.all(Array.from({ length: 25 }, () => s.hit(k('f'), 1000, T0 + 100)));
    expect([...counts].sort((x, y) => x - y)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
  });
}

describe('memoryRateLimitStore', () => {
  const store = memoryRateLimitStore();
  windowSemantics(
    () => store,
    (name) => name,
  );

  it('when a fresh store is created, then it does not share counts with another store', async () => {
    const a = memoryRateLimitStore();
    const b = memoryRateLimitStore();
    await a.hit('shared', 1000, T0);
    expect(await b.hit('shared', 1000, T0)).toBe(1);
  });
});

const redisUrl = inject('redisUrl');

describe.skipIf(!redisUrl)('redisRateLimitStore (needs TEST_REDIS_URL)', () => {
  let redis: Redis | undefined;
  const prefix = `test-${randomUUID()}`;
  const conn = (): Redis => {
    if (!redis) {
      throw new Error('redis not connected');
    }
    return redis;
  };
  beforeAll(async () => {
    redis = createRedis(redisUrl as string, 'commands');
    await waitForRedis(redis);
  });
  afterAll(async () => {
    if (redis) {
      const keys = await redis.keys(`rl:${prefix}:*`);
      if (keys.length > 0) {
        await redis.del(...keys);
      }
      await redis.quit();
    }
  });

  windowSemantics(
    () => redisRateLimitStore(conn()),
    (name) => `${prefix}:${name}`,
  );

  it('when a window is first hit, then its Redis key expires after two windows', async () => {
    const key = `${prefix}:ttl`;
    await redisRateLimitStore(conn()).hit(key, 1000, T0 + 250);
    const ttl = await conn().pttl(`rl:${key}:${T0 / 1000}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(2000);
  });

  it('when a window is hit again, then its expiry is not pushed back', async () => {
    const key = `${prefix}:ttl2`;
    const store = redisRateLimitStore(conn());
    await store.hit(key, 60_000, T0);
    await conn().pexpire(`rl:${key}:${T0 / 60_000}`, 5000);
    await store.hit(key, 60_000, T0 + 1);
    expect(await conn().pttl(`rl:${key}:${T0 / 60_000}`)).toBeLessThanOrEqual(5000);
  });

  it('when the expiry has passed, then the counter is gone', async () => {
    const key = `${prefix}:gone`;
    await redisRateLimitStore(conn()).hit(key, 20, T0);
    await new Promise((r) => setTimeout(r, 100));
    expect(await conn().exists(`rl:${key}:${T0 / 20}`)).toBe(0);
  });

  it('when two stores share one Redis (two API processes), then they share the count', async () => {
    const key = `${prefix}:shared`;
    const a = redisRateLimitStore(conn());
    const other = createRedis(redisUrl as string, 'commands');
    try {
      await waitForRedis(other);
      const b = redisRateLimitStore(other);
      expect([await a.hit(key, 1000, T0), await b.hit(key, 1000, T0 + 1), await a.hit(key, 1000, T0 + 2)]).toEqual([
        1, 2, 3,
      ]);
    } finally {
      await other.quit();
    }
  });
});
