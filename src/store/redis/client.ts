// ioredis connections. Commands fail fast while Redis is down (no offline queue) so a request is
// never stuck behind a dead connection; BullMQ workers get their own blocking connection.
import { Redis } from 'ioredis';

export function createRedis(url: string, purpose: 'commands' | 'worker'): Redis {
  if (purpose === 'worker') {
    return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false });
  }
  return new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: 1000,
  });
}

export async function waitForRedis(redis: Redis, timeoutMs = 5000): Promise<void> {
  if (redis.status === 'ready') {
    return;
  }
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`Redis not ready after ${timeoutMs} ms`)), timeoutMs);
    redis.once('ready', () => {
      clearTimeout(t);
      resolve();
    });
  });
}
