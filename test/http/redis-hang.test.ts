// A hung Redis (SIGSTOP: the connections stay open, nothing answers), rate limits on, service mode.
// Every Redis command would wait out its 1 s timeout, and a request makes two to four of them
// (IP and key limits, the reporting cache, an enqueue): fail-open, but seconds per request. After
// the first timeout the connection's breaker skips Redis (src/store/redis/breaker.ts): requests are
// let through, reports computed, installs accepted with their job held, without waiting on Redis.
// Once Redis answers again, the limits count in it again.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type PrivateRedis, redisUnavailable, startPrivateRedis } from '../faults/support/redis.ts';
import { closeHarness, type Harness, makeHarness, newProject, type TestProject } from '../support/harness.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/**
 * Commands that waited out the Redis command timeout (1 s, src/store/redis/client.ts), on every
 * connection of this process: a request that sent none did not wait on Redis, however long a busy
 * machine took to serve it (wall-clock time cannot tell the two apart).
 */
function countTimedOutCommands(): { n: number } {
  const counted = { n: 0 };
  const send = Redis.prototype.sendCommand;
  vi.spyOn(Redis.prototype, 'sendCommand').mockImplementation(function (this: Redis, ...args) {
    args[0].promise.catch((err: Error) => {
      if (err.message === 'Command timed out') {
        counted.n += 1;
      }
    });
    return send.apply(this, args);
  });
  return counted;
}

describe.skipIf(redisUnavailable())('while Redis hangs', () => {
  let redis: PrivateRedis;
  let h: Harness;
  let p: TestProject;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    h = await makeHarness({ env: { REDIS_URL: redis.url } });
    p = await newProject(h.deps);
  });

  afterAll(async () => {
    redis?.resume();
    if (h) {
      await closeHarness(h);
    }
    await redis?.close();
  });

  async function timed(send: () => Promise<{ statusCode: number }>): Promise<[number, number]> {
    const before = timedOut.n;
    const res = await send();
    return [res.statusCode, timedOut.n - before];
  }
  let timedOut = { n: 0 };
  const list = (ip: string) => () =>
    h.app.inject({ method: 'GET', url: '/api/v1/campaigns', headers: p.headers, remoteAddress: ip });

  it('when a first command has timed out, then requests are served without waiting on Redis, and it is used again once back', async () => {
    expect((await list('127.7.0.1')()).statusCode).toBe(200);
    timedOut = countTimedOutCommands();
    redis.pause();
    try {
      // The first request waits out one command timeout and opens the breaker.
      expect(await timed(list('127.7.0.2'))).toEqual([200, 1]);
      const served = [
        await timed(list('127.7.0.3')),
        await timed(list('127.7.0.3')),
        await timed(() =>
          h.app.inject({
            method: 'GET',
            url: '/api/v1/reporting/campaigns',
            headers: p.headers,
            remoteAddress: '127.7.0.4',
          }),
        ),
        await timed(() =>
          h.app.inject({
            method: 'POST',
            url: '/api/client/init',
            payload: { token: p.token, platform: 'ANDROID', install_instance_id: randomUUID(), device_data: {} },
          }),
        ),
      ];

      // Served, and none of them sent a command that waited out the timeout.
      expect(served).toEqual([
        [200, 0],
        [200, 0],
        [200, 0],
        [202, 0],
      ]);
    } finally {
      redis.resume();
      vi.restoreAllMocks();
    }
    // After the 5 s cooldown a command probes Redis, and the limits count there again.
    await sleep(5100);
    // Both requests are counted, in one window or in two (the limit's windows are wall-clock seconds).
    const counted = async () => {
      const keys = (await h.deps.redis?.keys('rl:ip:127.7.0.5:*')) ?? [];
      const counts = await Promise.all(keys.map((k) => h.deps.redis?.get(k)));
      return counts.reduce((sum, c) => sum + Number(c ?? 0), 0);
    };
    await list('127.7.0.5')();
    await list('127.7.0.5')();
    expect(await counted()).toBe(2);
  });
});
