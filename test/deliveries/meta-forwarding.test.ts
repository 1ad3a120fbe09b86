// Forwarding mapped commerce facts to Meta's Conversions API (spec: "Commerce events forwarded to
// the ad-network dataset"; catalog D8). Mapped capture-event and capture-payment facts are queued in
// their own transaction with contact data hashed, only while the connection is active; a retried
// payment queues one Purchase; an event breaking the spec's field rules is stored invalid with its
// reason and never sent; the fake Meta accepts exactly what we send.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post } from '../support/client.ts';
import {
  ACCESS_TOKEN,
  attemptRows,
  CART,
  connectMeta,
  DATASET_ID,
  deliverAt,
  deliveryEnv,
  deliveryRows,
  registeredUser,
} from '../support/deliveries.ts';
import { FakeCapi } from '../support/fake-capi.ts';
import { newProject, type TestProject, useHarness } from '../support/harness.ts';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const fake = new FakeCapi();
const env = deliveryEnv();
beforeAll(async () => {
  env.META_GRAPH_BASE_URL = await fake.start();
});
afterAll(() => fake.stop());
const h = useHarness({ env });

async function connected(active = true) {
  const p = await newProject(h().deps, { currency: 'EUR' });
  await connectMeta(h().deps, p, active);
  const iid = await registeredUser(h(), p, { userId: 'u-1', email: ' Foo@Bar.com ', phone: '+44 (0)20 7946 0958' });
  return { p, iid };
}

const event = (p: TestProject, iid: string, body: Record<string, unknown>) =>
  post(h(), 'capture-event', { token: p.token, platform: 'ANDROID', install_instance_id: iid, ...body });
const pay = (p: TestProject, iid: string, body: Record<string, unknown>) =>
  post(h(), 'capture-payment', { token: p.token, platform: 'ANDROID', install_instance_id: iid, ...body });

describe('mapping and event shape', () => {
  it('when a mapped event is captured, then one AddToCart with hashed contacts reaches the dataset', async () => {
    const { p, iid } = await connected();
    expect((await event(p, iid, { event_name: 'add_to_cart', event_data: CART, event_id: 'evt-1' })).statusCode).toBe(
      200,
    );
    expect((await event(p, iid, { event_name: 'not_mapped', event_data: CART })).statusCode).toBe(200);

    const out = await deliverAt(h().deps, p, 'meta');

    expect(out).toEqual({ claimed: 1, sent: 1, stale: 0, dead: 0, retry: false });
    const req = fake.requests.find((r) => r.eventIds.includes('evt-1'));
    expect(req?.path).toBe(`/v21.0/${DATASET_ID}/events`);
    expect(req?.status).toBe(200);
    expect(req?.body.access_token).toBe(ACCESS_TOKEN);
    const sent = ((req?.body.data ?? []) as Record<string, unknown>[])[0];
    expect(sent).toMatchObject({
      event_name: 'AddToCart',
      event_id: 'evt-1',
      action_source: 'app',
      user_data: {
        em: [sha('foo@bar.com')],
        ph: [sha('4402079460958')],
        external_id: [sha('u-1')],
        client_ip_address: '10.9.8.7',
        client_user_agent: expect.stringContaining('Android 14'),
        anon_id: iid,
      },
      app_data: { application_tracking_enabled: 1, extinfo: expect.arrayContaining(['a2']) },
      custom_data: CART,
    });
    expect(JSON.stringify(req?.body)).not.toMatch(/@|79460958|foo/i);
    expect(JSON.stringify(await deliveryRows(h().deps, p))).not.toMatch(/@|79460958/);
    expect(await deliveryRows(h().deps, p)).toMatchObject([
      { status: 'sent', attempts: 1, event_key: 'AddToCart:evt-1' },
    ]);
    expect(await attemptRows(h().deps, p)).toEqual([
      { outcome: 'sent', http_status: 200, events: 1, response: expect.stringContaining('"events_received":1') },
    ]);
  });

  it('when a mapped payment is captured twice with one payment_id, then one Purchase with event_id = payment_id', async () => {
    const { p, iid } = await connected();
    const body = {
      amount: 49.99,
      payment_id: 'pay-77',
      type: 'FIRST_PAYMENT',
      event_data: { ...CART, order_id: undefined },
    };
    expect((await pay(p, iid, body)).statusCode).toBe(201);
    expect((await pay(p, iid, body)).statusCode).toBe(200);

    await deliverAt(h().deps, p, 'meta');

    const rows = await deliveryRows(h().deps, p);
    expect(rows.map((r) => [r.event_key, r.status])).toEqual([['Purchase:pay-77', 'sent']]);
    expect(rows[0]?.payload.custom_data).toEqual({ ...CART, value: 49.99, currency: 'USD', order_id: 'pay-77' });
    expect(fake.accepted().filter((id) => id === 'pay-77')).toEqual(['pay-77']);
  });

  it('when a payment sends no currency, then the project currency is used; failed payments and other types are not sent', async () => {
    const { p, iid } = await connected();
    const data = { ...CART, currency: undefined, value: 49.99 };
    await pay(p, iid, { amount: 49.99, payment_id: 'ok-1', type: 'DEFAULT', event_data: data });
    await pay(p, iid, {
      amount: 49.99,
      payment_id: 'failed-1',
      type: 'DEFAULT',
      status: 'PAYMENT_FAILED',
      event_data: data,
    });
    await pay(p, iid, { amount: 49.99, payment_id: 'other-1', type: 'RECURRING', event_data: data });

    const rows = await deliveryRows(h().deps, p);

    expect(rows.map((r) => r.event_key)).toEqual(['Purchase:ok-1']);
    expect(rows[0]?.payload.custom_data).toMatchObject({ currency: 'EUR', order_id: 'ok-1', value: 49.99 });
  });

  it('when order_id and currency are "" (React Native sends null so), then each payment is its own Purchase with its payment_id and the project currency', async () => {
    // "" was kept: both rows went invalid under the one event key `Purchase:`, the second dropped.
    const { p, iid } = await connected();
    for (const id of ['rn-pay-a', 'rn-pay-b']) {
      const res = await pay(p, iid, {
        amount: 49.99,
        payment_id: id,
        type: 'DEFAULT',
        event_data: { ...CART, currency: '', order_id: '' },
      });
      expect(res.statusCode).toBe(201);
    }

    const rows = await deliveryRows(h().deps, p);
    await deliverAt(h().deps, p, 'meta');

    expect(rows.map((r) => [r.event_key, r.status])).toEqual([
      ['Purchase:rn-pay-a', 'pending'],
      ['Purchase:rn-pay-b', 'pending'],
    ]);
    expect(rows[0]?.payload.custom_data).toMatchObject({ currency: 'EUR', order_id: 'rn-pay-a' });
    expect(fake.accepted()).toEqual(expect.arrayContaining(['rn-pay-a', 'rn-pay-b']));
  });

  it('when the connection is inactive, then nothing is queued; after activation only new facts are sent', async () => {
    const { p, iid } = await connected(false);
    await event(p, iid, {
      event_name: 'view_item',
      event_data: { ...CART, value: undefined, currency: undefined },
      event_id: 'before',
    });
    await connectMeta(h().deps, p, true);
    await event(p, iid, {
      event_name: 'view_item',
      event_data: { ...CART, value: undefined, currency: undefined },
      event_id: 'after',
    });

    await deliverAt(h().deps, p, 'meta');

    expect((await deliveryRows(h().deps, p)).map((r) => [r.event_key, r.status])).toEqual([
      ['ViewContent:after', 'sent'],
    ]);
    expect(fake.accepted()).not.toContain('before');
  });
});

describe('field rules', () => {
  it.each([
    [{ ...CART, content_type: 'product_group' }, "content_type must be 'product' with content_ids"],
    [{ ...CART, content_ids: undefined }, 'content_ids or item_group_ids must be a non-empty array of strings'],
    [{ ...CART, value: '49.99' }, 'value must be a number (no currency symbol)'],
    [{ ...CART, value: 50 }, 'value 50 must equal the sum of item_price times quantity (49.99)'],
    [{ ...CART, currency: 'US$' }, 'currency must be a 3-letter ISO 4217 code whenever value is sent'],
    // Three letters, not an ISO 4217 code: Meta refuses the whole request it is batched with.
    [{ ...CART, currency: 'ABC' }, 'currency must be a 3-letter ISO 4217 code whenever value is sent'],
    [{ ...CART, num_items: 2 }, 'num_items must be the total quantity across contents (3)'],
    [
      { ...CART, contents: [{ id: 'sku-9', quantity: 1, item_price: 49.99 }] },
      'every contents id must be one of the content_ids',
    ],
  ])('when event_data is %j, then the event is stored invalid with "%s" and not sent', async (data, reason) => {
    const { p, iid } = await connected();
    await event(p, iid, { event_name: 'add_to_cart', event_data: data, event_id: 'bad-1' });

    const out = await deliverAt(h().deps, p, 'meta');

    expect(out.claimed).toBe(0);
    expect(await deliveryRows(h().deps, p)).toMatchObject([{ status: 'invalid', last_error: reason, attempts: 0 }]);
  });
});
