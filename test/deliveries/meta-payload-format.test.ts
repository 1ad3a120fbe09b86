// Meta deliveries: what one forwarded Conversions API event looks like (README "Outgoing deliveries":
// "What is sent"; catalog D8 and the Meta CAPI row of §1): contact fields normalized and SHA-256
// hashed as Meta's Business SDK does, never raw; event_time in seconds; action_source app; a
// Purchase's value is the payment amount in major units (0- and 3-decimal currencies too) with the
// project currency; event_id stable (event_id, order_id, payment_id); and a capture whose Purchase
// carries a long order_id is still stored: its delivery key `Purchase:<order_id>` once passed the
// 2,704 bytes a btree entry holds, failing the payment's transaction (500 on every retry), and the
// key is now unique by its md5 (migration 0027).
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flushFacts, post } from '../support/client.ts';
import { paymentFacts } from '../support/commerce.ts';
import { CART, connectMeta, deliverAt, deliveryEnv, deliveryRows, registeredUser } from '../support/deliveries.ts';
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

async function connected(opts: { currency?: string; email?: string; phone?: string } = {}) {
  const p = await newProject(h().deps, { currency: opts.currency ?? 'EUR' });
  await connectMeta(h().deps, p);
  const iid = await registeredUser(h(), p, { userId: 'User-42', email: opts.email, phone: opts.phone });
  return { p, iid };
}

const pay = (p: TestProject, iid: string, body: Record<string, unknown>) =>
  post(h(), 'capture-payment', { token: p.token, platform: 'ANDROID', install_instance_id: iid, ...body });
const event = (p: TestProject, iid: string, body: Record<string, unknown>) =>
  post(h(), 'capture-event', { token: p.token, platform: 'ANDROID', install_instance_id: iid, ...body });

async function sentEvent(p: TestProject, eventId: string): Promise<Record<string, unknown> | undefined> {
  await deliverAt(h().deps, p, 'meta');
  const req = fake.requests.find((r) => r.status === 200 && r.eventIds.includes(eventId));
  return ((req?.body.data ?? []) as Record<string, unknown>[]).find((e) => e.event_id === eventId);
}

describe('user data normalization (Business SDK rules)', () => {
  it.each([
    // [email, phone, em expected, ph expected]
    ['  MixedCase@Example.COM\t', '+1 (650) 555-1234', sha('mixedcase@example.com'), sha('16505551234')],
    ['a.b+tag@sub.example.co.uk', '0044 20 7946 0958', sha('a.b+tag@sub.example.co.uk'), sha('442079460958')],
    [sha('x@y.zz').toUpperCase(), sha('15551234567'), sha('x@y.zz'), sha('15551234567')],
  ])(
    'when the user has email %j and phone %j, then em/ph are the SDK hashes and nothing raw is sent',
    async (email, phone, em, ph) => {
      const { p, iid } = await connected({ email, phone });
      const id = `norm-${randomBytes(4).toString('hex')}`;
      await event(p, iid, { event_name: 'add_to_cart', event_data: CART, event_id: id });

      const sent = await sentEvent(p, id);

      expect(sent?.user_data).toMatchObject({ em: [em], ph: [ph], external_id: [sha('user-42')] });
      const raw = JSON.stringify(sent);
      expect(raw).not.toContain('@');
      expect(raw).not.toMatch(/555-?1234|7946/);
    },
  );

  it('when the email is malformed and the phone too short, then neither is sent (never raw)', async () => {
    const { p, iid } = await connected({ email: 'not-an-email', phone: '12-34' });
    await event(p, iid, { event_name: 'add_to_cart', event_data: CART, event_id: 'malformed-1' });

    const sent = await sentEvent(p, 'malformed-1');

    expect(sent?.user_data).not.toHaveProperty('em');
    expect(sent?.user_data).not.toHaveProperty('ph');
    expect(JSON.stringify(sent)).not.toContain('not-an-email');
  });
});

describe('server event fields', () => {
  it('when an event with a numeric event_id is captured, then Meta gets event_id as text, event_time in whole seconds and action_source app', async () => {
    const { p, iid } = await connected();
    const before = Math.floor(Date.now() / 1000);
    await event(p, iid, { event_name: 'view_item', event_data: { ...CART, currency: 'usd' }, event_id: 987654321 });
    const after = Math.ceil(Date.now() / 1000);

    const sent = await sentEvent(p, '987654321');

    expect(sent).toMatchObject({ event_name: 'ViewContent', event_id: '987654321', action_source: 'app' });
    expect(Number.isInteger(sent?.event_time)).toBe(true);
    expect(sent?.event_time as number).toBeGreaterThanOrEqual(before);
    expect(sent?.event_time as number).toBeLessThanOrEqual(after);
    expect(sent?.custom_data).toMatchObject({ currency: 'USD' });
  });

  it.each([
    ['JPY', 1500, { content_ids: ['sku-j'], contents: [{ id: 'sku-j', quantity: 3, item_price: 500 }], num_items: 3 }],
    [
      'KWD',
      12.345,
      { content_ids: ['sku-k'], contents: [{ id: 'sku-k', quantity: 1, item_price: 12.345 }], num_items: 1 },
    ],
    ['EUR', 0.1, { content_ids: ['sku-e'], contents: [{ id: 'sku-e', quantity: 1, item_price: 0.1 }], num_items: 1 }],
  ])(
    'when a %s project captures a payment of %s, then the Purchase value is that amount in major units with that currency',
    async (currency, amount, data) => {
      const { p, iid } = await connected({ currency });
      const payId = `cur-${currency}-${randomBytes(3).toString('hex')}`;
      const res = await pay(p, iid, {
        amount,
        payment_id: payId,
        type: 'DEFAULT',
        event_data: { ...data, content_type: 'product' },
      });
      expect(res.statusCode).toBe(201);

      const sent = await sentEvent(p, payId);

      expect(sent?.custom_data).toMatchObject({ value: amount, currency, order_id: payId });
    },
  );

  it('when a payment has an order_id, then the Purchase event_id is the order_id, and a second payment of that order is one Purchase', async () => {
    const { p, iid } = await connected();
    const data = { ...CART, order_id: 'order-9' };
    expect(
      (await pay(p, iid, { amount: 49.99, payment_id: 'p-a', type: 'DEFAULT', event_data: data })).statusCode,
    ).toBe(201);
    expect(
      (await pay(p, iid, { amount: 49.99, payment_id: 'p-b', type: 'DEFAULT', event_data: data })).statusCode,
    ).toBe(201);

    const sent = await sentEvent(p, 'order-9');

    expect(sent?.event_name).toBe('Purchase');
    expect((await deliveryRows(h().deps, p)).map((r) => [r.event_key, r.status])).toEqual([
      ['Purchase:order-9', 'sent'],
    ]);
  });
});

describe('a Purchase never costs the payment', () => {
  // Incompressible text within the 4,096 characters event_data strings are capped at: 4,000
  // base64 characters, or 700 emoji picked at random from U+1F300-U+1F9FF (2,800 bytes; Postgres
  // compresses an index entry first, and emoji drawn from a few hundred fit once compressed).
  const longOrderId = () => randomBytes(3000).toString('base64').slice(0, 4000);
  const emojiOrderId = () => String.fromCodePoint(...Array.from({ length: 700 }, () => 0x1f300 + randomInt(0x700)));

  it('when a mapped payment carries a 4,000-character order_id, then the payment is still stored (201) and counted', async () => {
    const { p, iid } = await connected();
    const orderId = longOrderId();

    const res = await pay(p, iid, {
      amount: 49.99,
      payment_id: 'long-order-1',
      type: 'DEFAULT',
      event_data: { ...CART, order_id: orderId },
    });

    expect(res.statusCode).toBe(201);
    await flushFacts(h());
    expect((await paymentFacts(h().deps, p)).map((f) => f.payment_id)).toEqual(['long-order-1']);
    expect((await deliveryRows(h().deps, p)).map((r) => [r.event_key, r.status])).toEqual([
      [`Purchase:${orderId}`, 'pending'],
    ]);
  });

  it('when the server-side POST /api/v1/capture-payment carries a 4,000-character order_id, then the payment is still stored (201)', async () => {
    const { p } = await connected();
    const orderId = longOrderId();

    const res = await h().app.inject({
      method: 'POST',
      url: '/api/v1/capture-payment',
      headers: p.headers,
      payload: {
        user_id: 'User-42',
        amount: 49.99,
        payment_id: 'srv-long-order-1',
        type: 'DEFAULT',
        event_data: { ...CART, order_id: orderId },
      },
    });

    expect(res.statusCode).toBe(201);
    await flushFacts(h());
    expect((await paymentFacts(h().deps, p)).map((f) => f.payment_id)).toEqual(['srv-long-order-1']);
    expect((await deliveryRows(h().deps, p)).map((r) => r.event_key)).toEqual([`Purchase:${orderId}`]);
  });

  it('when two payments carry one order_id of 700 random emoji, then both are stored and Meta gets one Purchase with that order_id as event_id', async () => {
    const { p, iid } = await connected();
    const orderId = emojiOrderId();
    const data = { ...CART, order_id: orderId };

    const first = await pay(p, iid, { amount: 49.99, payment_id: 'emoji-a', type: 'DEFAULT', event_data: data });
    const second = await pay(p, iid, { amount: 49.99, payment_id: 'emoji-b', type: 'DEFAULT', event_data: data });
    const sent = await sentEvent(p, orderId);

    expect([first.statusCode, second.statusCode]).toEqual([201, 201]);
    await flushFacts(h());
    expect((await paymentFacts(h().deps, p)).map((f) => f.payment_id).sort()).toEqual(['emoji-a', 'emoji-b']);
    expect(sent).toMatchObject({ event_name: 'Purchase', custom_data: { order_id: orderId } });
    expect((await deliveryRows(h().deps, p)).map((r) => [r.event_key, r.status])).toEqual([
      [`Purchase:${orderId}`, 'sent'],
    ]);
  });

  it('when two long order ids differ only in their last character, then each is its own Purchase', async () => {
    const { p, iid } = await connected();
    const stem = longOrderId().slice(0, 3999);

    await pay(p, iid, {
      amount: 49.99,
      payment_id: 'near-a',
      type: 'DEFAULT',
      event_data: { ...CART, order_id: `${stem}a` },
    });
    await pay(p, iid, {
      amount: 49.99,
      payment_id: 'near-b',
      type: 'DEFAULT',
      event_data: { ...CART, order_id: `${stem}b` },
    });

    expect((await deliveryRows(h().deps, p)).map((r) => r.event_key)).toEqual([
      `Purchase:${stem}a`,
      `Purchase:${stem}b`,
    ]);
  });

  it('when a mapped event carries a 4,000-character content id, then the event is still stored', async () => {
    const { p, iid } = await connected();
    const sku = randomBytes(3000).toString('base64').slice(0, 4000);

    const res = await event(p, iid, {
      event_name: 'view_item',
      event_id: 'long-sku-1',
      event_data: { content_ids: [sku], contents: [{ id: sku, quantity: 1, item_price: 1 }], content_type: 'product' },
    });

    expect(res.statusCode).toBe(200);
    expect(res.json().data.message).not.toMatch(/not stored/);
    expect((await deliveryRows(h().deps, p)).map((r) => r.event_key)).toEqual(['ViewContent:long-sku-1']);
  });
});
