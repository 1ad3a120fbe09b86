// The RevenueCat webhook's revenue rules (README "RevenueCat webhook"; RevenueCat "Event Types and
// Fields"): only money counts as a payment (UNCANCELLATION and PRODUCT_CHANGE are not stored, a free
// trial is initiated, not completed), a negative price is a refund's only, a partial refund lowers
// the payment, a refund that arrives before its purchase still applies, and REFUND_REVERSED gives
// back what the refund took. Every outcome is asserted again under RevenueCat's retries (same id).
import { randomInt, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { flushFacts, type Res, useClientHarness } from '../../support/client.ts';
import { paymentFacts, registeredUser } from '../../support/commerce.ts';
import { chJson, type TestProject } from '../../support/harness.ts';
import { connectRevenueCat, postRevenueCat } from '../../support/revenuecat.ts';

const h = useClientHarness();

/** A RevenueCat event body shaped as its samples: an INITIAL_PURCHASE of 9.99 USD unless overridden. */
function rcBody(event: Record<string, unknown> = {}) {
  return {
    api_version: '1.0',
    event: {
      event_timestamp_ms: Date.now(),
      product_id: 'com.example.monthly',
      period_type: 'NORMAL',
      environment: 'PRODUCTION',
      transaction_id: String(randomInt(1e14, 2e14)),
      original_transaction_id: '100000000000000',
      app_user_id: 'u1',
      aliases: [],
      original_app_user_id: 'u1',
      currency: 'USD',
      price: 9.99,
      price_in_purchased_currency: 9.99,
      store: 'APP_STORE',
      type: 'INITIAL_PURCHASE',
      id: randomUUID(),
      ...event,
    },
  };
}

type Body = ReturnType<typeof rcBody>;

/** RevenueCat's refund of `purchase`: a CANCELLATION with cancel_reason CUSTOMER_SUPPORT. */
const refundOf = (purchase: Body, price = -9.99, extra: Record<string, unknown> = {}) =>
  rcBody({
    type: 'CANCELLATION',
    cancel_reason: 'CUSTOMER_SUPPORT',
    transaction_id: purchase.event.transaction_id,
    price,
    price_in_purchased_currency: price,
    ...extra,
  });

const reversalOf = (purchase: Body) =>
  rcBody({ type: 'REFUND_REVERSED', transaction_id: purchase.event.transaction_id, price: 9.99 });

async function connectedUser() {
  const { p } = await registeredUser(h(), 'u1');
  return { p, token: await connectRevenueCat(h(), p) };
}

const send = (token: string, body: unknown): Promise<Res> => postRevenueCat(h(), token, body);

type Data = { result: string; removed: number; reduced: number; restored: number };
const data = (res: Res): Data => {
  expect(res.statusCode).toBe(200);
  return res.json().data;
};

function paymentRows(p: TestProject) {
  return h().deps.sql<{ payment_id: string; type: string; status: string; amount: string; removed: boolean }[]>`
    SELECT payment_id, type, status, amount::text AS amount, removed_at IS NOT NULL AS removed
    FROM payments WHERE project_id = ${p.project.id} ORDER BY id`;
}

/** The report's payment_events and revenue: completed payments per type, net of removals. */
async function report(p: TestProject) {
  await flushFacts(h());
  const events = await chJson<{ type: string; count: string; total: string }>(
    h().deps.ch,
    `SELECT type, toString(sum(count)) AS count, toString(sum(total)) AS total FROM campaign_payment_daily
      WHERE project_id = {p:String} GROUP BY type ORDER BY type`,
    { p: p.project.id },
  );
  const [daily] = await chJson<{ revenue: string; revenue_events: string }>(
    h().deps.ch,
    `SELECT toString(sum(revenue)) AS revenue, toString(sum(revenue_events)) AS revenue_events
      FROM campaign_daily WHERE project_id = {p:String}`,
    { p: p.project.id },
  );
  return { events, revenue: daily?.revenue ?? '0', revenueEvents: daily?.revenue_events ?? '0' };
}

describe('events that move no money', () => {
  it.each([
    ['UNCANCELLATION', {}],
    ['PRODUCT_CHANGE', { new_product_id: 'com.example.yearly' }],
  ])('when a %s arrives (twice), then nothing is stored and no payment is counted', async (type, extra) => {
    const { p, token } = await connectedUser();
    const body = rcBody({ type, ...extra });

    const answers = [await send(token, body), await send(token, body)];

    for (const res of answers) {
      expect(res.json()).toMatchObject({
        msg: `Event not stored: ${type} events are not payments.`,
        data: { result: 'not_a_payment', payment_type: null, payment_status: null },
      });
    }
    expect(await paymentRows(p)).toEqual([]);
    expect(await report(p)).toEqual({ events: [], revenue: '0', revenueEvents: '0' });
  });

  it('when a free trial starts (INITIAL_PURCHASE, period_type TRIAL, price 0), then it is kept as initiated and counts no payment', async () => {
    const { p, token } = await connectedUser();
    const trial = rcBody({ period_type: 'TRIAL', price: 0, price_in_purchased_currency: 0 });

    const first = await send(token, trial);
    const retry = await send(token, trial);

    expect(first.json().data).toMatchObject({
      result: 'stored',
      payment_type: 'FIRST_PAYMENT',
      payment_status: 'PAYMENT_INITIATED',
    });
    expect(data(retry).result).toBe('duplicate');
    expect(await paymentRows(p)).toEqual([
      {
        payment_id: trial.event.transaction_id,
        type: 'FIRST_PAYMENT',
        status: 'PAYMENT_INITIATED',
        amount: '0.000000000',
        removed: false,
      },
    ]);
    expect(await report(p)).toEqual({ events: [], revenue: '0', revenueEvents: '0' });
  });

  it('when the trial converts (RENEWAL, is_trial_conversion), then that payment is the one counted', async () => {
    const { p, token } = await connectedUser();
    await send(token, rcBody({ period_type: 'TRIAL', price: 0, price_in_purchased_currency: 0 }));

    const res = await send(token, rcBody({ type: 'RENEWAL', is_trial_conversion: true }));

    expect(data(res).result).toBe('stored');
    expect(await report(p)).toEqual({
      events: [{ type: 'SUBSCRIPTION_RENEWED', count: '1', total: '9.99' }],
      revenue: '9.99',
      revenueEvents: '1',
    });
  });
});

describe('400 negative price on a purchase', () => {
  it.each([
    ['INITIAL_PURCHASE', 'price', { price: -9.99 }],
    ['RENEWAL', 'price', { price: -4.99, price_in_purchased_currency: -4.99 }],
    ['NON_RENEWING_PURCHASE', 'price_in_purchased_currency', { price: 9.99, price_in_purchased_currency: -9.99 }],
  ])('when a %s has a negative %s, then 400 naming it and nothing is stored', async (type, field, prices) => {
    const { p, token } = await connectedUser();

    const res = await send(token, rcBody({ type, ...prices }));

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      msg: `event.${field} must be a number from 0 to 100000000000000000000 or null (negative only for a refund).`,
      status: 400,
    });
    expect(await paymentRows(p)).toEqual([]);
  });
});

describe('partial refunds', () => {
  it('when 3.00 of a 9.99 purchase is refunded (twice), then the purchase counts 6.99, still once', async () => {
    const { p, token } = await connectedUser();
    const purchase = rcBody();
    await send(token, purchase);
    const refund = refundOf(purchase, -3);

    const first = data(await send(token, refund));
    const retry = data(await send(token, refund));

    expect(first).toMatchObject({ result: 'stored', removed: 0, reduced: 1, restored: 0 });
    expect(retry).toMatchObject({ result: 'duplicate', removed: 0, reduced: 0 });
    expect((await paymentRows(p)).map((r) => [r.type, r.amount, r.removed])).toEqual([
      ['FIRST_PAYMENT', '6.990000000', false],
      ['SUBSCRIPTION_REFUNDED', '3.000000000', false],
    ]);
    expect(await report(p)).toEqual({
      events: [{ type: 'FIRST_PAYMENT', count: '1', total: '6.99' }],
      revenue: '6.99',
      revenueEvents: '1',
    });
  });

  it('when a partial refund is followed by a refund of the rest, then the purchase is removed and nets out', async () => {
    const { p, token } = await connectedUser();
    const purchase = rcBody();
    await send(token, purchase);
    await send(token, refundOf(purchase, -3));

    const rest = data(await send(token, refundOf(purchase, -6.99)));

    expect(rest).toMatchObject({ removed: 1, reduced: 0 });
    expect((await paymentRows(p))[0]).toMatchObject({ amount: '6.990000000', removed: true });
    expect(await report(p)).toEqual({
      events: [{ type: 'FIRST_PAYMENT', count: '0', total: '0' }],
      revenue: '0',
      revenueEvents: '0',
    });
  });
});

describe('a refund before its purchase', () => {
  it('when the refund arrives first, then the purchase arriving later (twice) is removed and nets out', async () => {
    const { p, token } = await connectedUser();
    const purchase = rcBody();

    const refund = data(await send(token, refundOf(purchase)));
    const late = data(await send(token, purchase));
    const retry = data(await send(token, purchase));

    expect(refund).toMatchObject({ result: 'stored', removed: 0 });
    expect(late).toMatchObject({ result: 'stored', removed: 1 });
    expect(retry).toMatchObject({ result: 'duplicate', removed: 0 });
    expect((await paymentRows(p)).map((r) => [r.type, r.removed])).toEqual([
      ['SUBSCRIPTION_REFUNDED', false],
      ['FIRST_PAYMENT', true],
    ]);
    expect(await report(p)).toEqual({
      events: [{ type: 'FIRST_PAYMENT', count: '0', total: '0' }],
      revenue: '0',
      revenueEvents: '0',
    });
  });

  it('when a partial refund arrives first, then the purchase counts the rest', async () => {
    const { p, token } = await connectedUser();
    const purchase = rcBody();
    await send(token, refundOf(purchase, -2.5));

    const late = data(await send(token, purchase));

    expect(late).toMatchObject({ result: 'stored', removed: 0, reduced: 1 });
    expect(await report(p)).toMatchObject({ revenue: '7.49', revenueEvents: '1' });
  });

  it('when the refund and its purchase arrive at once, then the purchase is removed either way', async () => {
    const { p, token } = await connectedUser();
    const purchase = rcBody();

    const answers = await Promise.all([send(token, refundOf(purchase)), send(token, purchase)]);

    expect(answers.reduce((n, r) => n + data(r).removed, 0)).toBe(1);
    expect((await paymentRows(p)).find((r) => r.type === 'FIRST_PAYMENT')?.removed).toBe(true);
    expect(await report(p)).toMatchObject({ revenue: '0', revenueEvents: '0' });
  });
});

describe('a refund naming no registered user', () => {
  it("when no payment has its transaction id, then nothing is kept (a retry after the user's deletion stores nothing)", async () => {
    const { p, token } = await connectedUser();
    const nobody = { app_user_id: 'nobody', original_app_user_id: 'nobody' };
    const purchase = rcBody(nobody);

    const res = data(await send(token, refundOf(purchase, -9.99, nobody)));
    const rows = await h().deps.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM revenuecat_refunds WHERE project_id = ${p.project.id}`;

    expect(res).toMatchObject({ result: 'unregistered', removed: 0, reduced: 0 });
    expect(rows[0]?.n).toBe(0);
  });

  it('when the app captured the purchase itself, then the refund still removes it', async () => {
    const { p, token } = await connectedUser();
    const purchase = rcBody();
    expect(data(await send(token, purchase)).result).toBe('stored');

    const res = data(
      await send(token, refundOf(purchase, -9.99, { app_user_id: 'nobody', original_app_user_id: 'nobody' })),
    );

    expect(res).toMatchObject({ removed: 1 });
    expect((await paymentRows(p))[0]).toMatchObject({ removed: true });
  });
});

describe('REFUND_REVERSED', () => {
  it('when a refunded purchase has its refund reversed (twice), then it counts again, once', async () => {
    const { p, token } = await connectedUser();
    const purchase = rcBody();
    await send(token, purchase);
    await send(token, refundOf(purchase));
    const reversal = reversalOf(purchase);

    const first = await send(token, reversal);
    const retry = await send(token, reversal);

    expect(first.json()).toEqual({
      msg: 'Refund reversed: the refunded payment counts again.',
      status: 200,
      data: {
        message: 'Refund reversed: the refunded payment counts again.',
        result: 'refund_reversed',
        payment_type: null,
        payment_status: null,
        removed: 0,
        reduced: 0,
        restored: 1,
      },
    });
    expect(data(retry)).toMatchObject({ result: 'refund_reversed', restored: 0 });
    expect(retry.json().msg).toBe('Refund reversed: no refunded payment was found; nothing was restored.');
    expect((await paymentRows(p))[0]).toMatchObject({ type: 'FIRST_PAYMENT', amount: '9.990000000', removed: false });
    expect(await report(p)).toEqual({
      events: [{ type: 'FIRST_PAYMENT', count: '1', total: '9.99' }],
      revenue: '9.99',
      revenueEvents: '1',
    });
    // Capture +1, removal -1, given back +1: all on the capture's row and day.
    const facts = (await paymentFacts(h().deps, p)).filter((f) => f.type === 'FIRST_PAYMENT');
    expect(facts.map((f) => [f.sign, f.amount])).toEqual([
      [1, '9.99'],
      [1, '9.99'],
      [-1, '9.99'],
    ]);
    expect(new Set(facts.map((f) => `${f.payment_row}|${f.day}|${f.campaign_id}`)).size).toBe(1);
  });

  it('when a partial refund is reversed, then the purchase counts its whole price again', async () => {
    const { p, token } = await connectedUser();
    const purchase = rcBody();
    await send(token, purchase);
    await send(token, refundOf(purchase, -3));

    const res = data(await send(token, reversalOf(purchase)));

    expect(res.restored).toBe(1);
    expect((await paymentRows(p))[0]).toMatchObject({ amount: '9.990000000', removed: false });
    expect(await report(p)).toMatchObject({ revenue: '9.99', revenueEvents: '1' });
  });

  it('when a refund that waits for its purchase is reversed, then the purchase arriving later counts', async () => {
    const { p, token } = await connectedUser();
    const purchase = rcBody();
    await send(token, refundOf(purchase));
    expect(data(await send(token, reversalOf(purchase))).restored).toBe(0);

    const late = data(await send(token, purchase));

    expect(late).toMatchObject({ result: 'stored', removed: 0 });
    expect(await report(p)).toMatchObject({ revenue: '9.99', revenueEvents: '1' });
  });

  it('when the reversal is from the SANDBOX environment, then the refund stands', async () => {
    const { p, token } = await connectedUser();
    const purchase = rcBody();
    await send(token, purchase);
    await send(token, refundOf(purchase));

    const res = data(
      await send(token, { ...reversalOf(purchase), event: { ...reversalOf(purchase).event, environment: 'SANDBOX' } }),
    );

    expect(res).toMatchObject({ result: 'sandbox', restored: 0 });
    expect((await paymentRows(p))[0]).toMatchObject({ removed: true });
  });
});
