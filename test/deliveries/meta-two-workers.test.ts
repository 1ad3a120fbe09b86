// Meta deliveries: two app instances with their workers on one Postgres and Redis (README "Roles and
// scaling out"), forwarding mapped capture-payment and capture-event facts to a fake Conversions API
// that fails with 500, 429 and a hang before recovering (README "Outgoing deliveries": retried with
// backoff; catalog F8: "event_id stays stable ... all delivered after recovery"). Every mapped fact
// must reach Meta exactly once with its stable event_id, duplicates sent to both instances
// included, and every delivery row must end `sent`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasRedis, useTwoInstances } from '../scale-out/instances.ts';
import { post } from '../support/client.ts';
import { CART, connectMeta, deliveryEnv, deliveryRows, registeredUser } from '../support/deliveries.ts';
import { until } from '../support/fact-counts.ts';
import { FakeCapi } from '../support/fake-capi.ts';
import { type Harness, newProject } from '../support/harness.ts';

const fake = new FakeCapi();
const env = deliveryEnv();
beforeAll(async () => {
  env.META_GRAPH_BASE_URL = await fake.start();
});
afterAll(() => fake.stop());

let a: Harness;
let b: Harness;
useTwoInstances(
  env,
  (x, y) => {
    a = x;
    b = y;
  },
  { workers: true },
);

const allSettled = (h: Harness, p: Parameters<typeof deliveryRows>[1], n: number) => async () => {
  const rows = await deliveryRows(h.deps, p);
  return rows.length === n && rows.every((r) => r.status !== 'pending');
};

describe.skipIf(!hasRedis)('Meta forwarding with two workers', () => {
  it('when payments (each sent to both instances) and events are captured while Meta answers 500, 429 and hangs, then each reaches Meta exactly once and every row ends sent', async () => {
    const p = await newProject(a.deps, { currency: 'EUR' });
    await connectMeta(a.deps, p);
    const iid = await registeredUser(a, p, { userId: 'u-2w', email: 'Shopper@Example.com', phone: '+1 650 555 1234' });
    fake.failNext(1, '500');
    fake.failNext(1, '429');
    fake.failNext(1, 'hang');
    const n = 12;
    const payIds = Array.from({ length: n }, (_, i) => `pay-2w-${i}-${p.project.id.slice(0, 8)}`);
    const evIds = Array.from({ length: n }, (_, i) => `ev-2w-${i}-${p.project.id.slice(0, 8)}`);
    const payBody = (id: string) => ({
      token: p.token,
      platform: 'ANDROID',
      install_instance_id: iid,
      amount: 49.99,
      payment_id: id,
      type: 'FIRST_PAYMENT',
      event_data: CART,
    });
    const evBody = (id: string) => ({
      token: p.token,
      platform: 'ANDROID',
      install_instance_id: iid,
      event_name: 'add_to_cart',
      event_id: id,
      event_data: CART,
    });

    const answers = await Promise.all([
      ...payIds.flatMap((id) => [post(a, 'capture-payment', payBody(id)), post(b, 'capture-payment', payBody(id))]),
      ...evIds.flatMap((id) => [post(b, 'capture-event', evBody(id)), post(a, 'capture-event', evBody(id))]),
    ]);
    expect(answers.filter((r) => r.statusCode === 201)).toHaveLength(n);

    await until('every delivery of the project is settled', allSettled(a, p, 2 * n), 60_000);
    // A late duplicate POST would show up here.
    await new Promise((r) => setTimeout(r, 2_000));

    const rows = await deliveryRows(a.deps, p);
    expect(rows.map((r) => r.status)).toEqual(rows.map(() => 'sent'));
    const ours = new Set([...payIds, ...evIds]);
    const accepted = fake.accepted().filter((id) => ours.has(id));
    expect(accepted.length).toBe(2 * n);
    expect([...accepted].sort()).toEqual([...payIds, ...evIds].sort());
    const failed = fake.requests.filter((r) => r.status !== 200 && r.eventIds.some((id) => ours.has(id)));
    expect(failed.map((r) => r.status).sort()).toEqual([0, 429, 500]);
    // The retried requests carried the same event ids as the ones that failed (no new ids).
    for (const r of failed) {
      for (const id of r.eventIds) {
        expect(accepted).toContain(id);
      }
    }
  }, 90_000);
});
