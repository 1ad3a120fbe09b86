// A small TTL cache for final answers (the 24 h attribution-data result): Redis in service mode,
// an in-process map with a size bound in embedded mode. Keys always include the project id.
import type { Redis } from 'ioredis';
import { guarded } from './breaker.ts';

export interface Cache {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, ttlSeconds: number): Promise<void>;
  del(key: string): Promise<void>;
}

export function redisCache(redis: Redis): Cache {
  return {
    async get(key) {
      return (await guarded(redis, () => redis.get(`cache:${key}`))) ?? undefined;
    },
    async set(key, value, ttl) {
      await guarded(redis, () => redis.set(`cache:${key}`, value, 'EX', ttl));
    },
    async del(key) {
      await guarded(redis, () => redis.del(`cache:${key}`));
    },
  };
}

export function memoryCache(maxEntries = 100_000, now: () => number = Date.now): Cache {
  const map = new Map<string, { value: string; expiresAt: number }>();
  return {
    async get(key) {
      const e = map.get(key);
      if (!e) {
        return undefined;
      }
      if (e.expiresAt <= now()) {
        map.delete(key);
        return undefined;
      }
      return e.value;
    },
    async set(key, value, ttl) {
      map.delete(key);
      map.set(key, { value, expiresAt: now() + ttl * 1000 });
      if (map.size > maxEntries) {
        const oldest = map.keys().next().value;
        if (oldest !== undefined) {
          map.delete(oldest);
        }
      }
    },
    async del(key) {
      map.delete(key);
    },
  };
}
