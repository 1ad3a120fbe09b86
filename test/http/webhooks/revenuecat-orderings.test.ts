// The RevenueCat webhook (README "RevenueCat webhook") against adversarial orderings,
// currencies and tenants.
import { randomInt, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { flushFacts, post, type Res, useClientHarness } from '../../support/client.ts';
import { netRevenue, registeredUser } from '../../support/commerce.ts';
import type { TestProject } from '../../support/harness.ts';
import { connectRevenueCat, postRevenueCat } from '../../support/revenuecat.ts';

const h = useClientHarness();

function rcBody(event: Record<string, unknown> = {}) {
  return {
    api_version: '1.0',
    event: {
      event_timestamp_ms: Date.now(),
      product_id: 'com.example.monthly',
      environment: 'PRODUCTION',
      transaction_id: String(randomInt(1e14, 2e14)),
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

const connect = (p: TestProject): Promise<string> => connectRevenueCat(h(), p);
const send = (authorization: string, body: unknown): Promise<Res> => postRevenueCat(h(), authorization, body);

function paymentRows(p: TestProject) {
  return h().deps.sql<{ payment_id: string; user_id: string; type: string; removed: boolean }[]>`
    SELECT payment_id, user_id, type, removed_at IS NOT NULL AS removed
    FROM payments WHERE project_id = ${p.project.id} ORDER BY id`;
}

describe('refunds', () => {
  it('when the app captured a purchase itself and RevenueCat refunds it in a currency the EUR project cannot take, then the purchase is still removed', async () => {
    // README: "an app that also sends it through capture-payment with that id counts it once"; a refund
    // "removes the payment whose payment_id is its transaction_id ... a partial refund removes the whole
    // payment": the refund's amount plays no part in the removal.
    const { p, iid } = await registeredUser(h(), 'u1');
    await h().deps.sql`UPDATE projects SET display_currency = 'EUR' WHERE id = ${p.project.id}`;
    const token = await connect(p);
    const tx = '170000869511999';
    const pay = await post(h(), 'capture-payment', {
      token: p.token,
      platform: 'ANDROID',
      install_instance_id: iid,
      user_id: 'u1',
      amount: 7.5,
      payment_id: tx,
    });
    expect(pay.statusCode).toBe(201);
    // RevenueCat's own copy of the purchase (in GBP) is not stored: the app's capture counts.
    const purchase = await send(
      token,
      rcBody({ transaction_id: tx, currency: 'GBP', price: 8.14, price_in_purchased_currency: 6.99 }),
    );
    expect(purchase.json().data.result).toBe('currency');

    const refund = await send(
      token,
      rcBody({
        type: 'CANCELLATION',
        cancel_reason: 'CUSTOMER_SUPPORT',
        transaction_id: tx,
        currency: 'GBP',
        price: -8.14,
        price_in_purchased_currency: -6.99,
      }),
    );

    expect(refund.statusCode).toBe(200);
    expect(refund.json().data.removed).toBe(1);
    expect(await paymentRows(p)).toMatchObject([{ payment_id: tx, removed: true }]);
    await flushFacts(h());
    expect(await netRevenue(h().deps, p)).toBe('0');
  });

  it("when project B's RevenueCat refunds project A's transaction id, then A's payment stays", async () => {
    const a = await registeredUser(h(), 'u1');
    const b = await registeredUser(h(), 'u1');
    const tokenA = await connect(a.p);
    const tokenB = await connect(b.p);
    const purchase = rcBody();
    expect((await send(tokenA, purchase)).json().data.result).toBe('stored');

    const res = await send(
      tokenB,
      rcBody({
        type: 'CANCELLATION',
        cancel_reason: 'CUSTOMER_SUPPORT',
        transaction_id: purchase.event.transaction_id,
        price: -9.99,
      }),
    );

    expect(res.json().data.removed).toBe(0);
    expect(await paymentRows(a.p)).toMatchObject([{ removed: false }]);
  });

  it('when app_user_id and original_app_user_id are two registered users, then the payment is app_user_id’s', async () => {
    const { p, iid } = await registeredUser(h(), 'current');
    // A second user registered on the same install earlier (an account switch).
    await h().deps.sql`INSERT INTO app_users (project_id, user_id, install_instance_id)
      SELECT project_id, 'original', install_instance_id FROM app_users WHERE project_id = ${p.project.id} AND user_id = 'current'`;
    void iid;
    const token = await connect(p);

    const res = await send(
      token,
      rcBody({ app_user_id: 'current', original_app_user_id: 'original', aliases: ['original'] }),
    );

    expect(res.json().data.result).toBe('stored');
    expect(await paymentRows(p)).toMatchObject([{ user_id: 'current' }]);
  });

  it('when RevenueCat sends a refund three times at once, then the purchase is removed once and the refund kept once', async () => {
    const { p } = await registeredUser(h(), 'u1');
    const token = await connect(p);
    const purchase = rcBody();
    await send(token, purchase);
    const refund = rcBody({
      type: 'CANCELLATION',
      cancel_reason: 'CUSTOMER_SUPPORT',
      transaction_id: purchase.event.transaction_id,
      price: -9.99,
    });

    const answers = await Promise.all([send(token, refund), send(token, refund), send(token, refund)]);

    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect(answers.reduce((n, r) => n + r.json().data.removed, 0)).toBe(1);
    expect((await paymentRows(p)).map((r) => [r.type, r.removed])).toEqual([
      ['FIRST_PAYMENT', true],
      ['SUBSCRIPTION_REFUNDED', false],
    ]);
    await flushFacts(h());
    // Completed revenue (the refund record is cancelled, not revenue).
    const [row] = await chJsonRows(p);
    expect(row?.net).toBe('0');
  });
});

async function chJsonRows(p: TestProject) {
  const rs = await h().deps.ch.query({
    query: `SELECT toString(sum(amount * sign)) AS net FROM payments
      WHERE project_id = {p:String} AND status = 'PAYMENT_COMPLETED'`,
    format: 'JSONEachRow',
    query_params: { p: p.project.id },
  });
  return rs.json<{ net: string }>();
}
