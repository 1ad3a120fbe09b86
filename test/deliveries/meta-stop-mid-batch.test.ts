// Meta deliveries: one of two workers is stopped (gracefully, as SIGTERM does) while its Conversions API
// POST is in flight (README "Roles and scaling out"; "Outgoing deliveries": a worker shutting down
// gives its batch back; catalog F9: the sent-log counts 1). The other worker must deliver every
// Purchase and AddToCart exactly once, with the same event ids, and every row must end sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkers } from '../../jobs/worker.ts';
import { hasRedis } from '../scale-out/instances.ts';
import { post, processRedisUrl } from '../support/client.ts';
import { attemptRows, CART, connectMeta, deliveryEnv, deliveryRows, registeredUser } from '../support/deliveries.ts';
import { until } from '../support/fact-counts.ts';
import { FakeCapi } from '../support/fake-capi.ts';
import { closeHarness, type Harness, makeHarness, newProject } from '../support/harness.ts';

const fake = new FakeCapi();
let a: Harness | undefined;
let b: Harness | undefined;
let aClosed = false;
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  const base = await fake.start();
  if (!hasRedis) {
    return;
  }
  const env = { ...deliveryEnv(), META_GRAPH_BASE_URL: base, REDIS_URL: processRedisUrl() ?? '' };
  a = await makeHarness({ env });
  b = await makeHarness({ env });
});
afterAll(async () => {
  for (const s of stops) {
    await s().catch(() => {});
  }
  if (a && !aClosed) {
    await closeHarness(a);
  }
  if (b) {
    await closeHarness(b);
  }
  await fake.stop();
});

describe.skipIf(!hasRedis)('a worker stopped mid-way through a Meta batch', () => {
  it('when the worker POSTing a Meta batch is stopped while Meta hangs, then the other worker delivers each event exactly once and every row ends sent', async () => {
    const x = a as Harness;
    const y = b as Harness;
    const p = await newProject(x.deps);
    await connectMeta(x.deps, p);
    const iid = await registeredUser(x, p, { userId: 'u-stop', email: 'stop@example.org' });
    const tag = p.project.id.slice(0, 8);
    const payIds = Array.from({ length: 5 }, (_, i) => `pay-stop-${i}-${tag}`);
    const evIds = Array.from({ length: 5 }, (_, i) => `ev-stop-${i}-${tag}`);
    for (const id of payIds) {
      const res = await post(x, 'capture-payment', {
        token: p.token,
        platform: 'ANDROID',
        install_instance_id: iid,
        amount: 49.99,
        payment_id: id,
        type: 'DEFAULT',
        event_data: CART,
      });
      expect(res.statusCode).toBe(201);
    }
    for (const id of evIds) {
      await post(y, 'capture-event', {
        token: p.token,
        platform: 'ANDROID',
        install_instance_id: iid,
        event_name: 'add_to_cart',
        event_id: id,
        event_data: CART,
      });
    }
    const ours = new Set([...payIds, ...evIds]);
    fake.failNext(1, 'hang');

    stops.push(await startWorkers(x.deps));
    await until(
      'Meta got the first POST',
      () => fake.requests.some((r) => r.eventIds.some((id) => ours.has(id))),
      20_000,
    );
    stops.push(await startWorkers(y.deps));
    const stopA = stops.shift() as () => Promise<void>;
    await stopA();
    await closeHarness(x);
    aClosed = true;

    await until(
      'no delivery of the project is pending',
      async () => (await deliveryRows(y.deps, p)).every((r) => r.status !== 'pending'),
      60_000,
    );
    await new Promise((r) => setTimeout(r, 2_000));

    const accepted = fake.accepted().filter((id) => ours.has(id));
    expect([...accepted].sort()).toEqual([...ours].sort());
    expect((await deliveryRows(y.deps, p)).map((r) => r.status)).toEqual([...ours].map(() => 'sent'));
    const log = await attemptRows(y.deps, p);
    expect(log.filter((l) => l.outcome === 'sent').reduce((s, l) => s + l.events, 0)).toBe(ours.size);
  }, 120_000);
});
