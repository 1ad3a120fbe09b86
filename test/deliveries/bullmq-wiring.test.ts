// The delivery job on real BullMQ (needs TEST_REDIS_URL): a 500 from Meta makes the job throw, BullMQ
// retries it with backoff, and each event lands once. Job data in Redis holds ids only: no email,
// no phone (catalog D8: no raw PII in BullMQ job data).
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { deliverJob } from '../../jobs/deliver.job.ts';
import { enqueueDueDeliveries } from '../../src/domain/deliveries/enqueue-due-deliveries.ts';
import { QUEUES } from '../../src/queue/names.ts';
import { post, processRedisUrl } from '../support/client.ts';
import { CART, connectMeta, deliveryEnv, deliveryRows, registeredUser } from '../support/deliveries.ts';
import { FakeCapi } from '../support/fake-capi.ts';
import { closeHarness, makeHarness, newProject } from '../support/harness.ts';

const fake = new FakeCapi();
beforeAll(() => fake.start());
afterAll(() => fake.stop());

describe('deliveries on BullMQ', () => {
  it.skipIf(!inject('redisUrl'))(
    'when Meta fails once, then BullMQ retries the job, each event lands once, and job data has no PII',
    async () => {
      const h = await makeHarness({
        env: { ...deliveryEnv(), META_GRAPH_BASE_URL: fake.url, REDIS_URL: processRedisUrl() ?? '' },
      });
      try {
        expect(h.deps.queue.kind).toBe('bullmq');
        const p = await newProject(h.deps);
        await connectMeta(h.deps, p);
        const iid = await registeredUser(h, p, { userId: 'u-bull', email: 'zed@example.org', phone: '+4915112345678' });
        for (const id of ['bq-1', 'bq-2']) {
          const res = await post(h, 'capture-event', {
            token: p.token,
            platform: 'ANDROID',
            install_instance_id: iid,
            event_name: 'add_to_cart',
            event_data: CART,
            event_id: id,
          });
          expect(res.statusCode).toBe(200);
        }
        fake.failNext(1, '500');
        await h.deps.queue.startWorkers({ [QUEUES.deliveries]: deliverJob(h.deps) });

        await enqueueDueDeliveries(h.deps, Date.now());
        const redis = h.deps.redis;
        const dump: string[] = [];
        for (const key of (await redis?.keys(`bull:${QUEUES.deliveries}:*`)) ?? []) {
          if ((await redis?.type(key)) === 'hash') {
            dump.push(JSON.stringify(await redis?.hgetall(key)));
          }
        }
        for (let i = 0; i < 100 && (await deliveryRows(h.deps, p)).some((r) => r.status !== 'sent'); i += 1) {
          await new Promise((r) => setTimeout(r, 100));
        }

        expect((await deliveryRows(h.deps, p)).map((r) => [r.status, r.attempts])).toEqual([
          ['sent', 2],
          ['sent', 2],
        ]);
        expect(
          fake
            .accepted()
            .filter((id) => id.startsWith('bq-'))
            .sort(),
        ).toEqual(['bq-1', 'bq-2']);
        expect(dump.join('\n')).toContain(p.project.id);
        expect(dump.join('\n')).not.toMatch(/zed@example\.org|15112345678/);
      } finally {
        await closeHarness(h);
      }
    },
    60_000,
  );
});
