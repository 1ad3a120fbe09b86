// A hung Redis (SIGSTOP: the connections stay open, nothing answers), rate limits on, service mode.
// Every Redis command would wait out its 1 s timeout, and a request makes two to four of them
// (IP and key limits, the reporting cache, an enqueue): fail-open, but seconds per request. After
// the first timeout the connection's breaker skips Redis (src/store/redis/breaker.ts): requests are
// let through, reports computed, installs accepted with their job held, without waiting on Redis.
// Once Redis answers again, the limits count in it again.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PrivateRedis, redisUnavailable, startPrivateRedis } from '../faults/support/redis.ts';
import { closeHarness, type Harness, makeHarness, newProject, type TestProject } from '../support/harness.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The Redis command timeout (src/store/redis/client.ts): a request under it did not wait on Redis. */
const COMMAND_TIMEOUT_MS = 1000;

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
    const t0 = performance.now();
    const res = await send();
    return [res.statusCode, performance.now() - t0];
  }
  const list = (ip: string) => () =>
    h.app.inject({ method: 'GET', url: '/api/v1/campaigns', headers: p.headers, remoteAddress: ip });

  it('when a first command has timed out, then requests are served without waiting on Redis, and it is used again once back', async () => {
    expect((await list('127.7.0.1')()).statusCode).toBe(200);
    redis.pause();
    try {
      // The first request waits out one command timeout and opens the breaker.
      expect((await timed(list('127.7.0.2')))[0]).toBe(200);
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

      expect(served.map(([status]) => status)).toEqual([200, 200, 200, 202]);
      for (const [, ms] of served) {
        expect(ms).toBeLessThan(COMMAND_TIMEOUT_MS);
      }
    } finally {
      redis.resume();
    }
    // After the 5 s cooldown a command probes Redis, and the limits count there again.
    await sleep(5100);
    const counters = async () => (await h.deps.redis?.keys('rl:ip:127.7.0.5:*'))?.length ?? 0;
    await list('127.7.0.5')();
    await list('127.7.0.5')();
    expect(await counters()).toBe(1);
  });
});
