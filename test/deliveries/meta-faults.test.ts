// Delivery machinery against a misbehaving Meta (catalog F8): 500, 429 and a hang are retried with
// backoff and every event lands once with the same event_id; a 400 is not retried and goes to the
// dead letters with its reason, and replay sends it; retries are bounded; events past the 7-day
// limit are filtered out of a batch instead of failing it; batches hold at most 1,000 events.
// The job itself is wired through the queue in the last test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverJob } from '../../jobs/deliver.job.ts';
import { enqueueDueDeliveries } from '../../src/domain/deliveries/enqueue-due-deliveries.ts';
import { replayDeadDeliveries } from '../../src/domain/deliveries/replay-dead-deliveries.ts';
import { QUEUES } from '../../src/queue/names.ts';
import {
  claimDueDeliveries,
  finishDeliveries,
  insertDeliveries,
  listDeadDeliveries,
} from '../../src/store/postgres/deliveries.ts';
import { post } from '../support/client.ts';
import {
  attemptRows,
  CART,
  connectMeta,
  deliverAt,
  deliveryEnv,
  deliveryRows,
  registeredUser,
} from '../support/deliveries.ts';
import { FakeCapi } from '../support/fake-capi.ts';
import { newProject, type TestProject, useHarness } from '../support/harness.ts';

const fake = new FakeCapi();
const env = deliveryEnv();
beforeAll(async () => {
  env.META_GRAPH_BASE_URL = await fake.start();
});
afterAll(() => fake.stop());
const h = useHarness({ env });

/** A connected project with `n` AddToCart events queued (event ids e-<tag>-0 …). */
async function queued(n: number, tag: string): Promise<{ p: TestProject; ids: string[] }> {
  const p = await newProject(h().deps);
  await connectMeta(h().deps, p);
  const iid = await registeredUser(h(), p, { userId: `u-${tag}`, email: 'a@b.co' });
  const ids = Array.from({ length: n }, (_, i) => `e-${tag}-${i}`);
  for (const id of ids) {
    const res = await post(h(), 'capture-event', {
      token: p.token,
      platform: 'ANDROID',
      install_instance_id: iid,
      event_name: 'add_to_cart',
      event_data: CART,
      event_id: id,
    });
    expect(res.statusCode).toBe(200);
  }
  return { p, ids };
}

const acceptedOf = (ids: string[]) => fake.accepted().filter((id) => ids.includes(id));
const requestsOf = (ids: string[]) => fake.requests.filter((r) => r.eventIds.some((id) => ids.includes(id)));

describe('retried faults', () => {
  it.each(['500', '429'] as const)(
    'when Meta answers %s once, then the batch is retried after backoff and each event lands once',
    async (mode) => {
      const { p, ids } = await queued(3, `f${mode}`);
      fake.failNext(1, mode);
      const t0 = Date.now();

      expect(await deliverAt(h().deps, p, 'meta', t0)).toMatchObject({ claimed: 3, sent: 0, retry: true });
      expect(await deliveryRows(h().deps, p)).toMatchObject(ids.map(() => ({ status: 'pending', attempts: 1 })));
      expect((await deliverAt(h().deps, p, 'meta', t0 + 10)).claimed).toBe(0);
      expect(await deliverAt(h().deps, p, 'meta', t0 + 1_100)).toMatchObject({ claimed: 3, sent: 3, retry: false });

      expect(acceptedOf(ids).sort()).toEqual([...ids].sort());
      expect(requestsOf(ids).map((r) => [r.status, r.eventIds])).toEqual([
        [Number(mode), ids],
        [200, ids],
      ]);
      expect((await deliveryRows(h().deps, p)).map((r) => [r.status, r.attempts])).toEqual(ids.map(() => ['sent', 2]));
      expect((await attemptRows(h().deps, p)).map((a) => [a.outcome, a.http_status, a.events])).toEqual([
        ['retry', Number(mode), 3],
        ['sent', 200, 3],
      ]);
    },
  );

  it('when Meta hangs, then the attempt times out near 1.5 s and the retry delivers', async () => {
    const { p, ids } = await queued(2, 'hang');
    fake.failNext(1, 'hang');
    const t0 = Date.now();

    const started = performance.now();
    expect(await deliverAt(h().deps, p, 'meta', t0)).toMatchObject({ sent: 0, retry: true });
    expect(performance.now() - started).toBeLessThan(5000);
    expect((await deliveryRows(h().deps, p))[0]?.last_error).toBe('timeout: no complete answer within 1500 ms');
    await deliverAt(h().deps, p, 'meta', t0 + 1_100);

    expect(acceptedOf(ids).sort()).toEqual([...ids].sort());
    expect((await attemptRows(h().deps, p)).map((a) => [a.outcome, a.http_status])).toEqual([
      ['retry', 0],
      ['sent', 200],
    ]);
  });

  it('when Meta keeps failing, then the rows go dead after the bounded attempts', async () => {
    const { p } = await queued(1, 'exhaust');
    fake.failNext(8, '500');
    let t = Date.now();
    for (let i = 0; i < 8; i += 1) {
      await deliverAt(h().deps, p, 'meta', t);
      t += 1000 * 2 ** 8;
    }
    expect(await deliveryRows(h().deps, p)).toMatchObject([
      { status: 'dead', attempts: 8, last_error: expect.stringContaining('HTTP 500') },
    ]);
  });
});

describe('refused and stale', () => {
  it('when Meta answers 400, then nothing is retried, the rows are dead letters with the reason, and replay sends them', async () => {
    const { p, ids } = await queued(2, 'f400');
    fake.failNext(1, '400');

    expect(await deliverAt(h().deps, p, 'meta')).toMatchObject({ sent: 0, dead: 2, retry: false });
    const dead = await listDeadDeliveries(h().deps.sql, p.project.id);
    expect(dead.map((d) => [d.status, d.reason])).toEqual(
      ids.map(() => ['dead', 'HTTP 400: {"error":{"message":"fake 400","type":"OAuthException","code":100}}']),
    );
    expect((await deliverAt(h().deps, p, 'meta', Date.now() + 3_600_000)).claimed).toBe(0);

    expect(await replayDeadDeliveries(h().deps, { projectId: p.project.id })).toEqual({
      deliveries: 2,
      destinations: 1,
    });
    await deliverAt(h().deps, p, 'meta');

    expect(acceptedOf(ids).sort()).toEqual([...ids].sort());
    expect((await deliveryRows(h().deps, p)).map((r) => r.status)).toEqual(['sent', 'sent']);
  });

  it('when one event of a batch is older than 7 days, then it is filtered as stale and the others are delivered', async () => {
    const { p, ids } = await queued(3, 'stale');
    const old = Date.now() - 8 * 24 * 3600 * 1000;
    await h().deps.sql`UPDATE deliveries SET event_time = ${new Date(old)},
        payload = jsonb_set(payload, '{event_time}', ${Math.floor(old / 1000)}::text::jsonb)
      WHERE project_id = ${p.project.id} AND event_key = ${`AddToCart:${ids[0]}`}`;

    expect(await deliverAt(h().deps, p, 'meta')).toMatchObject({ claimed: 3, stale: 1, sent: 2 });

    expect(acceptedOf(ids).sort()).toEqual([ids[1], ids[2]]);
    expect((await deliveryRows(h().deps, p)).map((r) => r.status)).toEqual(['stale', 'sent', 'sent']);
    expect((await attemptRows(h().deps, p)).map((a) => [a.outcome, a.events]).sort()).toEqual([
      ['sent', 2],
      ['stale', 1],
    ]);
  });

  it('when 1,001 events are due, then they go in two requests of 1,000 and 1', async () => {
    const { p, ids } = await queued(1, 'batch');
    const [row] = await deliveryRows(h().deps, p);
    const more = Array.from({ length: 1000 }, (_, i) => `bulk-${i}`);
    await insertDeliveries(
      h().deps.sql,
      more.map((id) => ({
        projectId: p.project.id,
        destination: 'meta',
        eventKey: `AddToCart:${id}`,
        eventTime: new Date(),
        payload: { ...row?.payload, event_id: id },
      })),
    );

    await deliverAt(h().deps, p, 'meta');
    await deliverAt(h().deps, p, 'meta');

    expect(requestsOf([...ids, ...more]).map((r) => [r.status, r.eventIds.length])).toEqual([
      [200, 1000],
      [200, 1],
    ]);
    expect(new Set(acceptedOf([...ids, ...more])).size).toBe(1001);
  });
});

describe('stalled worker (catalog F9)', () => {
  it('when a claim is never finished, then after its lease another run sends the rows and they count once', async () => {
    const { p, ids } = await queued(2, 'stall');
    const t0 = Date.now();
    const stalled = await claimDueDeliveries(h().deps.sql, {
      projectId: p.project.id,
      destination: 'meta',
      now: new Date(t0),
      limit: 1000,
      leaseMs: 60_000,
    });
    expect(stalled).toHaveLength(2);
    expect((await deliverAt(h().deps, p, 'meta', t0 + 1_000)).claimed).toBe(0);

    expect(await deliverAt(h().deps, p, 'meta', t0 + 61_000)).toMatchObject({ claimed: 2, sent: 2 });
    await finishDeliveries(
      h().deps.sql,
      stalled.map((d) => d.id),
      'sent',
      null,
      new Date(),
    );

    expect(acceptedOf(ids).sort()).toEqual([...ids].sort());
    expect((await deliveryRows(h().deps, p)).map((r) => [r.status, r.attempts])).toEqual([
      ['sent', 1],
      ['sent', 1],
    ]);
  });
});

describe('job wiring', () => {
  it('when the queue runs the job and Meta fails once, then the job retries and each event lands once', async () => {
    const { p, ids } = await queued(2, 'wired');
    fake.failNext(1, '500');
    await h().deps.queue.startWorkers({ [QUEUES.deliveries]: deliverJob(h().deps) });

    await enqueueDueDeliveries(h().deps, Date.now());
    for (let i = 0; i < 100 && (await deliveryRows(h().deps, p)).some((r) => r.status !== 'sent'); i += 1) {
      await new Promise((r) => setTimeout(r, 100));
    }

    expect((await deliveryRows(h().deps, p)).map((r) => [r.status, r.attempts])).toEqual([
      ['sent', 2],
      ['sent', 2],
    ]);
    expect(acceptedOf(ids).sort()).toEqual([...ids].sort());
  });
});
