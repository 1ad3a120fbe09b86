// POST /webhook/revenuecat (product notes "RevenueCat"): each event that maps to a payment is stored
// as capture-payment stores one (a payments row and one `payments` fact on the user's campaign),
// answered 200 with data.result. Retries of an event store nothing more; a refund removes the
// refunded payment (sign -1) and is kept as SUBSCRIPTION_REFUNDED; SANDBOX, TEST, types that are
// not payments and users trigger never registered store nothing; the token names the project.
// Partial refunds, refunds before their purchase and REFUND_REVERSED: revenuecat-refunds.test.ts.
import { randomInt, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { attributedInstall, flushFacts, type Res, useClientHarness } from '../../support/client.ts';
import { outboxCount, paymentFacts, registeredUser, signUp } from '../../support/commerce.ts';
import { chJson, newProject, type TestProject } from '../../support/harness.ts';
import { answerProblems, fetchDoc } from '../../support/openapi.ts';
import { connectRevenueCat, postRevenueCat } from '../../support/revenuecat.ts';

const h = useClientHarness();

const ANONYMOUS = '$RCAnonymousID:8069238d6049ce87cc529853916d624c';

/** A RevenueCat webhook body shaped as RevenueCat's samples (an INITIAL_PURCHASE unless overridden). */
function rcBody(event: Record<string, unknown> = {}) {
  return {
    api_version: '1.0',
    event: {
      event_timestamp_ms: Date.now(),
      product_id: 'com.example.monthly',
      period_type: 'NORMAL',
      purchased_at_ms: Date.now() - 5000,
      expiration_at_ms: Date.now() + 30 * 86_400_000,
      environment: 'PRODUCTION',
      entitlement_ids: ['pro'],
      transaction_id: String(randomInt(1e14, 2e14)),
      original_transaction_id: '100000000000000',
      is_family_share: false,
      country_code: 'US',
      app_user_id: 'u1',
      aliases: [ANONYMOUS],
      original_app_user_id: ANONYMOUS,
      currency: 'USD',
      price: 9.99,
      price_in_purchased_currency: 9.99,
      subscriber_attributes: { $email: { updated_at_ms: 1662955084635, value: 'first@example.com' } },
      store: 'APP_STORE',
      takehome_percentage: 0.7,
      type: 'INITIAL_PURCHASE',
      id: randomUUID(),
      app_id: 'app1234',
      ...event,
    },
  };
}

const connect = (p: TestProject): Promise<string> => connectRevenueCat(h(), p);
const send = (authorization: string, body: unknown): Promise<Res> => postRevenueCat(h(), authorization, body);

/** A project with an organic install whose user trigger registered, connected to RevenueCat. */
async function connectedUser(userId = 'u1') {
  const { p, iid } = await registeredUser(h(), userId);
  return { p, iid, token: await connect(p) };
}

const answer = (
  message: string,
  result: string,
  type: string | null = null,
  status: string | null = null,
  removed = 0,
) => ({
  msg: message,
  status: 200,
  data: { message, result, payment_type: type, payment_status: status, removed, reduced: 0, restored: 0 },
});
const CAPTURED = 'Payment captured successfully';
const DUPLICATE = 'Payment already captured: duplicate payment_id ignored.';
const NOT_REGISTERED = 'Payment not stored: the user is not registered. Call trigger first.';

type PaymentRow = { payment_id: string | null; user_id: string; type: string; status: string; amount: string };

function paymentRows(p: TestProject): Promise<(PaymentRow & { removed: boolean })[]> {
  return h().deps.sql<(PaymentRow & { removed: boolean })[]>`
    SELECT payment_id, user_id, type, status, amount::text AS amount, removed_at IS NOT NULL AS removed
    FROM payments WHERE project_id = ${p.project.id} ORDER BY id`;
}

/** The report's payment_events source: completed payments per type, net of removals. */
function paymentEvents(p: TestProject) {
  return chJson<{ type: string; count: string; total: string }>(
    h().deps.ch,
    `SELECT type, toString(sum(count)) AS count, toString(sum(total)) AS total FROM campaign_payment_daily
      WHERE project_id = {p:String} GROUP BY type ORDER BY type`,
    { p: p.project.id },
  );
}

/** The report's revenue source: completed payments net of removals. */
async function reportRevenue(p: TestProject): Promise<string> {
  const [row] = await chJson<{ revenue: string }>(
    h().deps.ch,
    'SELECT toString(sum(revenue)) AS revenue FROM campaign_daily WHERE project_id = {p:String}',
    { p: p.project.id },
  );
  return row?.revenue ?? '0';
}

describe('200 stored', () => {
  it('when an INITIAL_PURCHASE names a registered user, then one FIRST_PAYMENT and one fact on the campaign', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const { campaign, iid } = await attributedInstall(h(), p);
    await signUp(h(), p, iid, 'u1');
    const token = await connect(p);
    const body = rcBody({ transaction_id: '170000869511114' });

    const res = await send(token, body);

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(answer(CAPTURED, 'stored', 'FIRST_PAYMENT', 'PAYMENT_COMPLETED'));
    expect(answerProblems(await fetchDoc(h().app), 'POST', '/webhook/revenuecat', res)).toEqual([]);
    expect(await paymentRows(p)).toEqual([
      {
        payment_id: '170000869511114',
        user_id: 'u1',
        type: 'FIRST_PAYMENT',
        status: 'PAYMENT_COMPLETED',
        amount: '9.990000000',
        removed: false,
      },
    ]);
    await flushFacts(h());
    expect(await paymentFacts(deps, p)).toMatchObject([
      {
        install_instance_id: iid,
        user_id: 'u1',
        payment_id: '170000869511114',
        type: 'FIRST_PAYMENT',
        status: 'PAYMENT_COMPLETED',
        amount: '9.99',
        sign: 1,
        campaign_id: campaign.id,
        display_id: campaign.displayId,
      },
    ]);
    expect(await paymentEvents(p)).toEqual([{ type: 'FIRST_PAYMENT', count: '1', total: '9.99' }]);
  });

  it('when RevenueCat sends the same event five times, two of them at once, then it is stored and counted once', async () => {
    const { p, token } = await connectedUser();
    const body = rcBody({ type: 'RENEWAL', price: 4.99, price_in_purchased_currency: 4.99 });

    const first = await Promise.all([send(token, body), send(token, body)]);
    const later = [await send(token, body), await send(token, body), await send(token, body)];

    const results = [...first, ...later].map((r) => [r.statusCode, r.json().data.result]);
    expect(results.filter(([, r]) => r === 'stored')).toHaveLength(1);
    expect(results.filter(([s, r]) => s === 200 && r === 'duplicate')).toHaveLength(4);
    expect(later[0]?.json()).toEqual(answer(DUPLICATE, 'duplicate', 'SUBSCRIPTION_RENEWED', 'PAYMENT_COMPLETED'));
    expect(await paymentRows(p)).toHaveLength(1);
    await flushFacts(h());
    expect(await paymentFacts(h().deps, p)).toHaveLength(1);
    expect(await paymentEvents(p)).toEqual([{ type: 'SUBSCRIPTION_RENEWED', count: '1', total: '4.99' }]);
  });

  it.each([
    ['RENEWAL', {}, 'SUBSCRIPTION_RENEWED', 'PAYMENT_COMPLETED', '9.990000000', 'transaction'],
    ['NON_RENEWING_PURCHASE', {}, 'ONE_TIME', 'PAYMENT_COMPLETED', '9.990000000', 'transaction'],
    [
      'CANCELLATION',
      { cancel_reason: 'UNSUBSCRIBE', price: 0 },
      'SUBSCRIPTION_CANCELLED',
      'PAYMENT_CANCELLED',
      '0.000000000',
      'event',
    ],
    [
      'BILLING_ISSUE',
      { grace_period_expiration_at_ms: null },
      'SUBSCRIPTION_BILLING_ISSUE',
      'PAYMENT_FAILED',
      '0.000000000',
      'event',
    ],
  ])('when the event is a %s, then it is stored as %s', async (rcType, extra, type, status, amount, idFrom) => {
    const { p, token } = await connectedUser();
    const body = rcBody({ type: rcType, ...extra });

    const res = await send(token, body);

    expect(res.json()).toEqual(answer(CAPTURED, 'stored', type, status));
    expect(await paymentRows(p)).toEqual([
      {
        payment_id: idFrom === 'transaction' ? body.event.transaction_id : body.event.id,
        user_id: 'u1',
        type,
        status,
        amount,
        removed: false,
      },
    ]);
  });

  it('when a purchase is refunded (CANCELLATION, CUSTOMER_SUPPORT), then the purchase is removed and the refund kept', async () => {
    const { p, token } = await connectedUser();
    const purchase = rcBody();
    expect((await send(token, purchase)).json().data.result).toBe('stored');
    const refund = rcBody({
      type: 'CANCELLATION',
      cancel_reason: 'CUSTOMER_SUPPORT',
      price: -9.99,
      price_in_purchased_currency: -9.99,
      transaction_id: purchase.event.transaction_id,
    });

    const res = await send(token, refund);
    const retry = await send(token, refund);

    expect(res.json()).toEqual(
      answer('Refund captured successfully', 'stored', 'SUBSCRIPTION_REFUNDED', 'PAYMENT_CANCELLED', 1),
    );
    expect(retry.json()).toEqual(answer(DUPLICATE, 'duplicate', 'SUBSCRIPTION_REFUNDED', 'PAYMENT_CANCELLED', 0));
    expect(await paymentRows(p)).toEqual([
      {
        payment_id: purchase.event.transaction_id,
        user_id: 'u1',
        type: 'FIRST_PAYMENT',
        status: 'PAYMENT_COMPLETED',
        amount: '9.990000000',
        removed: true,
      },
      {
        payment_id: refund.event.id,
        user_id: 'u1',
        type: 'SUBSCRIPTION_REFUNDED',
        status: 'PAYMENT_CANCELLED',
        amount: '9.990000000',
        removed: false,
      },
    ]);
    await flushFacts(h());
    expect((await paymentFacts(h().deps, p)).map((f) => [f.type, f.status, f.amount, f.sign])).toEqual([
      ['FIRST_PAYMENT', 'PAYMENT_COMPLETED', '9.99', 1],
      ['FIRST_PAYMENT', 'PAYMENT_COMPLETED', '9.99', -1],
      ['SUBSCRIPTION_REFUNDED', 'PAYMENT_CANCELLED', '9.99', 1],
    ]);
    // Reporting counts completed payments only: the purchase nets out, the cancelled refund row is not revenue.
    expect(await reportRevenue(p)).toBe('0');
    expect(await paymentEvents(p)).toEqual([{ type: 'FIRST_PAYMENT', count: '0', total: '0' }]);
  });

  it("when app_user_id is anonymous and an alias is the registered user, then the payment is that user's", async () => {
    const { p, token } = await connectedUser('user_1234');

    const res = await send(
      token,
      rcBody({
        app_user_id: '$RCAnonymousID:aaaa',
        original_app_user_id: '$RCAnonymousID:bbbb',
        aliases: [ANONYMOUS, 'user_1234'],
      }),
    );

    expect(res.json().data.result).toBe('stored');
    expect(await paymentRows(p)).toMatchObject([{ user_id: 'user_1234' }]);
  });

  it.each([
    ['the bare token', (t: string) => t],
    ['Bearer and the token', (t: string) => `Bearer ${t}`],
    ['bearer, spaces and the token', (t: string) => `  bearer   ${t}  `],
  ])('when the Authorization header is %s, then the event is stored', async (_case, header) => {
    const { p, token } = await connectedUser();

    const res = await send(header(token), rcBody());

    expect(res.json().data.result).toBe('stored');
    expect(await paymentRows(p)).toHaveLength(1);
  });

  it("when another project's token is sent for a user of both, then only that project gets the payment", async () => {
    const a = await connectedUser('shared-user');
    const b = await connectedUser('shared-user');
    const body = rcBody({ app_user_id: 'shared-user' });

    const res = await send(b.token, body);

    expect(res.json().data.result).toBe('stored');
    expect(await paymentRows(a.p)).toEqual([]);
    expect(await paymentRows(b.p)).toMatchObject([{ user_id: 'shared-user' }]);
  });

  it.each([
    [
      'USD',
      'a purchase in EUR (RevenueCat gives its USD price)',
      { currency: 'EUR', price: 8.14, price_in_purchased_currency: 7.99 },
      'stored',
      '8.140000000',
    ],
    [
      'EUR',
      'a purchase in its currency',
      { currency: 'EUR', price: 8.14, price_in_purchased_currency: 7.99 },
      'stored',
      '7.990000000',
    ],
    [
      'EUR',
      'a free trial in another currency',
      { currency: 'GBP', price: 0, price_in_purchased_currency: 0 },
      'stored',
      '0.000000000',
    ],
    [
      'EUR',
      'a purchase in another currency',
      { currency: 'GBP', price: 8.14, price_in_purchased_currency: 6.99 },
      'currency',
      null,
    ],
  ])(
    'when a %s project gets %s, then the amount is in the project currency or not stored',
    async (currency, _case, prices, result, amount) => {
      const { p } = await registeredUser(h(), 'u1');
      await h().deps.sql`UPDATE projects SET display_currency = ${currency} WHERE id = ${p.project.id}`;
      const token = await connect(p);

      const res = await send(token, rcBody(prices));

      expect(res.json().data.result).toBe(result);
      expect((await paymentRows(p)).map((r) => r.amount)).toEqual(amount ? [amount] : []);
      if (result === 'currency') {
        expect(res.json().msg).toBe('Event not stored: its amount cannot be given in the project currency EUR.');
      }
    },
  );
});

describe('200 not stored', () => {
  it('when the user was never registered through trigger, then nothing is stored', async () => {
    const { p, token } = await connectedUser('someone-else');

    const res = await send(token, rcBody({ app_user_id: 'stranger', original_app_user_id: 'stranger', aliases: [] }));

    expect(res.json()).toEqual(answer(NOT_REGISTERED, 'unregistered', 'FIRST_PAYMENT', 'PAYMENT_COMPLETED'));
    expect(await paymentRows(p)).toEqual([]);
    expect(await outboxCount(h().deps, p, 'payments')).toBe(0);
  });

  it('when the event is from the SANDBOX environment, then nothing is stored', async () => {
    const { p, token } = await connectedUser();

    const res = await send(token, rcBody({ environment: 'SANDBOX' }));

    expect(res.json()).toEqual(
      answer('Event not stored: sandbox purchases are not counted.', 'sandbox', 'FIRST_PAYMENT', 'PAYMENT_COMPLETED'),
    );
    expect(await paymentRows(p)).toEqual([]);
  });

  it("when RevenueCat's dashboard sends a TEST event, then 200 and nothing is stored", async () => {
    const { p, token } = await connectedUser();

    const res = await send(token, rcBody({ type: 'TEST', app_user_id: 'test-user', environment: 'SANDBOX' }));

    expect(res.json()).toEqual(answer('Test event received; nothing was stored.', 'test'));
    expect(await paymentRows(p)).toEqual([]);
  });

  it.each([
    ['EXPIRATION', { expiration_reason: 'UNSUBSCRIBE', price: 'not read', cancel_reason: {} }],
    ['SUBSCRIPTION_PAUSED', { auto_resume_at_ms: 1 }],
    ['TRANSFER', { app_user_id: undefined, transferred_from: ['a'], transferred_to: ['u1'] }],
    ['SUBSCRIPTION_EXTENDED', {}],
    ['UNCANCELLATION', {}],
    ['PRODUCT_CHANGE', { new_product_id: 'yearly' }],
    ['TEMPORARY_ENTITLEMENT_GRANT', {}],
    ['VIRTUAL_CURRENCY_TRANSACTION', { adjustments: [{ amount: 10, currency: { code: 'GEM' } }] }],
    ['SOME_FUTURE_TYPE', { id: undefined, environment: undefined }],
  ])('when the event is a %s, then 200 and nothing is stored', async (type, extra) => {
    const { p, token } = await connectedUser();

    const res = await send(token, rcBody({ type, ...extra }));

    expect(res.json()).toEqual(answer(`Event not stored: ${type} events are not payments.`, 'not_a_payment'));
    expect(await paymentRows(p)).toEqual([]);
  });
});
