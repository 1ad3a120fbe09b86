// Fixed-window counters for rate limits: Redis in service mode (shared by every API process),
// a Map in embedded mode. hit() returns the count in the current window including this hit.
import type { Redis } from 'ioredis';
import { guarded } from './breaker.ts';

export interface RateLimitStore {
  hit(key: string, windowMs: number, now: number): Promise<number>;
}

const INCR_WITH_TTL = `local c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return c`;

export function redisRateLimitStore(redis: Redis): RateLimitStore {
  return {
    async hit(key, windowMs, now) {
      const window = Math.floor(now / windowMs);
      const n = await guarded(redis, () => redis.eval(INCR_WITH_TTL, 1, `rl:${key}:${window}`, String(windowMs * 2)));
      return Number(n);
    },
  };
}

export function memoryRateLimitStore(): RateLimitStore {
  const counters = new Map<string, { endsAt: number; count: number }>();
  let lastSweep = 0;
  return {
    async hit(key, windowMs, now) {
      const endsAt = (Math.floor(now / windowMs) + 1) * windowMs;
      if (now - lastSweep > 10_000) {
        lastSweep = now;
        for (const [k, v] of counters) {
          if (v.endsAt <= now) {
            counters.delete(k);
          }
        }
      }
      const c = counters.get(key);
      if (!c || c.endsAt !== endsAt) {
        counters.set(key, { endsAt, count: 1 });
        return 1;
      }
      c.count += 1;
      return c.count;
    },
  };
}
