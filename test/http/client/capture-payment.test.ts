// POST /api/client/capture-payment (spec Rules 3-6; real-clients §4.6; catalog §4c): 201
// {msg, status, data: {message}} when stored; 200 with a message when nothing was stored (user not
// registered through trigger, or a repeated payment_id). One payments row and one `payments` fact
// (sign 1, the install's campaign) per payment; a payment_id is stored once even under 50
// concurrent sends; no payment_id (absent or "") is never deduplicated; amounts are exact decimals.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { attributedInstall, flushFacts, init, post, type Res, useClientHarness } from '../../support/client.ts';
import { netRevenue, outboxCount, paymentFacts, registeredUser, signUp } from '../../support/commerce.ts';
import { newProject, type TestProject } from '../../support/harness.ts';

const h = useClientHarness();

const CAPTURED = {
  msg: 'Payment captured successfully',
  status: 201,
  data: { message: 'Payment captured successfully' },
};
const answer200 = (message: string) => ({ msg: message, status: 200, data: { message } });
const NOT_STORED = answer200('Payment not stored: the user is not registered. Call trigger first.');
const DUPLICATE = answer200('Payment already captured: duplicate payment_id ignored.');
const bad = (msg: string) => ({ msg, status: 400 });
const BAD_AMOUNT = bad('amount must be a number from 0 to 1e20.');
const BAD_TYPE = bad(
  'type must be one of FIRST_PAYMENT, SECOND_PAYMENT, ONE_TIME, RECURRING, WALLET_TOPUP, FUNDS_WITHDRAWAL, SUBSCRIPTION_CREATED, SUBSCRIPTION_RENEWED, SUBSCRIPTION_CANCELLED, SUBSCRIPTION_REFUNDED, SUBSCRIPTION_BILLING_ISSUE, DEFAULT.',
);
const BAD_STATUS = bad(
  'status must be one of PAYMENT_INITIATED, PAYMENT_COMPLETED, PAYMENT_FAILED, PAYMENT_CANCELLED.',
);
const BAD_PAYMENT_ID = bad('payment_id must be a string or number of at most 256 characters.');

function registered(userId = 'payer') {
  return registeredUser(h(), userId);
}

function pay(p: TestProject, iid: string, body: Record<string, unknown>): Promise<Res> {
  return post(h(), 'capture-payment', { token: p.token, platform: 'ANDROID', install_instance_id: iid, ...body });
}

function payRaw(json: string): Promise<Res> {
  return post(h(), 'capture-payment', json, { headers: { 'content-type': 'application/json; charset=UTF-8' } });
}

type PaymentRow = {
  payment_id: string | null;
  user_id: string;
  install_instance_id: string;
  type: string;
  status: string;
  amount: string;
  removed_at: Date | null;
};

function paymentRows(p: TestProject): Promise<PaymentRow[]> {
  return h().deps.sql<PaymentRow[]>`SELECT payment_id, user_id, install_instance_id, type, status,
    amount::text AS amount, removed_at FROM payments WHERE project_id = ${p.project.id} ORDER BY id`;
}

describe('201', () => {
  it('when an attributed Android install pays (AND-1.1 body), then one row and one fact with its campaign', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const { campaign, iid } = await attributedInstall(h(), p);
    await signUp(h(), p, iid, 'u-7');

    const res = await payRaw(
      `{"token":"${p.token}","platform":"ANDROID","data":{"device_data":{"device_id":"abc","carrier":["Jio"]}},` +
        `"payment_id":"ord-1","user_id":"u-7","amount":499.0,"type":"FIRST_PAYMENT","status":"PAYMENT_COMPLETED",` +
        `"install_instance_id":"${iid}"}`,
    );

    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual(CAPTURED);
    expect(await paymentRows(p)).toEqual([
      {
        payment_id: 'ord-1',
        user_id: 'u-7',
        install_instance_id: iid,
        type: 'FIRST_PAYMENT',
        status: 'PAYMENT_COMPLETED',
        amount: '499.000000000',
        removed_at: null,
      },
    ]);
    await flushFacts(h());
    const [row] = await deps.sql<{ id: string }[]>`SELECT id::text FROM payments WHERE project_id = ${p.project.id}`;
    expect(await paymentFacts(deps, p)).toEqual([
      {
        event_id: expect.stringMatching(/^pay_/),
        install_instance_id: iid,
        user_id: 'u-7',
        payment_id: 'ord-1',
        payment_row: row?.id,
        type: 'FIRST_PAYMENT',
        status: 'PAYMENT_COMPLETED',
        amount: '499',
        sign: 1,
        ts: expect.any(String),
        recorded_at: expect.any(String),
        day: expect.stringMatching(/^\d{4}-\d\d-\d\d$/),
        platform: 'ANDROID',
        campaign_id: campaign.id,
        display_id: campaign.displayId,
      },
    ]);
  });

  it('when iOS 4.x pays with "event_data":null and no type or status, then the defaults are stored', async () => {
    const { p, iid } = await registered('ios-payer');

    const res = await payRaw(
      `{"event_data":null,"status":null,"token":"${p.token}","user_id":"ios-payer","platform":"IOS",` +
        `"amount":9.99,"install_instance_id":"${iid}","time_since_app_install":3600.5,"payment_id":"tx_1",` +
        `"data":{"device_data":{"idfv":"X"}}}`,
    );

    expect(res.json()).toEqual(CAPTURED);
    expect(await paymentRows(p)).toMatchObject([
      { type: 'DEFAULT', status: 'PAYMENT_COMPLETED', amount: '9.990000000' },
    ]);
  });

  it('when type and status are "" (RN bridge nulls), then the defaults are stored', async () => {
    const { p, iid } = await registered();
    expect((await pay(p, iid, { amount: 1, type: '', status: '' })).json()).toEqual(CAPTURED);
    expect(await paymentRows(p)).toMatchObject([{ type: 'DEFAULT', status: 'PAYMENT_COMPLETED' }]);
  });

  it('when no user_id is sent, then the user trigger tied to the install is used', async () => {
    const { p, iid } = await registered('from-install');
    expect((await pay(p, iid, { amount: 5 })).json()).toEqual(CAPTURED);
    expect(await paymentRows(p)).toMatchObject([{ user_id: 'from-install', payment_id: null }]);
  });

  it.each([
    ['0', '0', '0.000000000'],
    ['-0', '0', '0.000000000'],
    ['1e20', '100000000000000000000', '100000000000000000000.000000000'],
    ['0.123456789123456789', '0.123456789', '0.123456789'],
    ['0.0000000005', '0.000000001', '0.000000001'],
    ['1.25E7', '12500000', '12500000.000000000'],
  ])('when amount is %s, then it is stored exactly as %s', async (raw, chAmount, pgAmount) => {
    const { deps } = h();
    const { p, iid } = await registered();

    const res = await payRaw(`{"token":"${p.token}","install_instance_id":"${iid}","amount":${raw}}`);

    expect(res.json()).toEqual(CAPTURED);
    expect(await paymentRows(p)).toMatchObject([{ amount: pgAmount }]);
    await flushFacts(h());
    expect(await paymentFacts(deps, p)).toMatchObject([{ amount: chAmount }]);
  });

  it('when 0.1 and 0.2 are paid, then ClickHouse revenue is exactly 0.3', async () => {
    const { deps } = h();
    const { p, iid } = await registered();

    await pay(p, iid, { amount: 0.1 });
    await pay(p, iid, { amount: 0.2 });

    await flushFacts(h());
    expect(await netRevenue(deps, p)).toBe('0.3');
  });

  it('when no payment_id is sent twice, then two payments are stored', async () => {
    const { deps } = h();
    const { p, iid } = await registered();

    expect((await pay(p, iid, { amount: 10 })).json()).toEqual(CAPTURED);
    expect((await pay(p, iid, { amount: 10 })).json()).toEqual(CAPTURED);

    expect(await paymentRows(p)).toHaveLength(2);
    await flushFacts(h());
    expect(await netRevenue(deps, p)).toBe('20');
  });

  it('when payment_id is "" twice (RN, Android), then it counts as absent: two payments', async () => {
    const { p, iid } = await registered();

    expect((await pay(p, iid, { amount: 1, payment_id: '' })).json()).toEqual(CAPTURED);
    expect((await pay(p, iid, { amount: 1, payment_id: '' })).json()).toEqual(CAPTURED);

    expect((await paymentRows(p)).map((r) => r.payment_id)).toEqual([null, null]);
  });

  it('when payment_id is a number, then its text is the id', async () => {
    const { p, iid } = await registered();
    await pay(p, iid, { amount: 1, payment_id: 1234 });
    expect((await pay(p, iid, { amount: 1, payment_id: '1234' })).json()).toEqual(DUPLICATE);
    expect((await paymentRows(p)).map((r) => r.payment_id)).toEqual(['1234']);
  });

  it('when every spec type and status is sent, then each is stored', async () => {
    const { p, iid } = await registered();
    const types = ['FIRST_PAYMENT', 'SECOND_PAYMENT', 'ONE_TIME', 'RECURRING', 'WALLET_TOPUP', 'FUNDS_WITHDRAWAL'];
    const more = ['SUBSCRIPTION_CREATED', 'SUBSCRIPTION_RENEWED', 'SUBSCRIPTION_CANCELLED', 'SUBSCRIPTION_REFUNDED'];
    const all = [...types, ...more, 'SUBSCRIPTION_BILLING_ISSUE', 'DEFAULT'];
    const statuses = ['PAYMENT_INITIATED', 'PAYMENT_COMPLETED', 'PAYMENT_FAILED', 'PAYMENT_CANCELLED'];

    for (const [i, type] of all.entries()) {
      const status = statuses[i % statuses.length];
      expect((await pay(p, iid, { amount: i, type, status })).statusCode).toBe(201);
    }

    expect((await paymentRows(p)).map((r) => r.type)).toEqual(all);
  });
});

describe('200 duplicate payment_id (Rule 4)', () => {
  it('when the same payment_id is sent twice, then one row, one fact, revenue counted once', async () => {
    const { deps } = h();
    const { p, iid } = await registered();

    const first = await pay(p, iid, { amount: 25.5, payment_id: 'ord-9' });
    const second = await pay(p, iid, { amount: 25.5, payment_id: 'ord-9' });

    expect(first.json()).toEqual(CAPTURED);
    expect(second.statusCode).toBe(200);
    expect(second.json()).toEqual(DUPLICATE);
    expect(await paymentRows(p)).toHaveLength(1);
    await flushFacts(h());
    expect(await paymentFacts(deps, p)).toHaveLength(1);
    expect(await netRevenue(deps, p)).toBe('25.5');
  });

  it('when the same payment_id is sent 50 times at once, then exactly one row and one fact', async () => {
    const { deps } = h();
    const { p, iid } = await registered();

    const answers = await Promise.all(
      Array.from({ length: 50 }, () => pay(p, iid, { amount: 100, payment_id: 'burst-1', type: 'ONE_TIME' })),
    );

    expect(answers.filter((r) => r.statusCode === 201)).toHaveLength(1);
    expect(answers.filter((r) => r.statusCode === 200).map((r) => r.json())).toEqual(Array(49).fill(DUPLICATE));
    expect(await paymentRows(p)).toHaveLength(1);
    await flushFacts(h());
    expect(await paymentFacts(deps, p)).toHaveLength(1);
    expect(await netRevenue(deps, p)).toBe('100');
  });

  it('when a payment_id comes back with another type, then it is still a duplicate (spec: payment_id alone)', async () => {
    const { p, iid } = await registered();
    await pay(p, iid, { amount: 1, payment_id: 'p-x', type: 'FIRST_PAYMENT' });
    expect((await pay(p, iid, { amount: 1, payment_id: 'p-x', type: 'RECURRING' })).json()).toEqual(DUPLICATE);
  });

  it('when another project uses the same payment_id, then both are stored', async () => {
    const a = await registered();
    const b = await registered();
    expect((await pay(a.p, a.iid, { amount: 1, payment_id: 'same' })).json()).toEqual(CAPTURED);
    expect((await pay(b.p, b.iid, { amount: 1, payment_id: 'same' })).json()).toEqual(CAPTURED);
  });
});

describe('200 not stored (Rule 3)', () => {
  it('when the install has no registered user, then no row and no fact', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = randomUUID();
    await init(h(), p.token, { install_instance_id: iid });

    const res = await pay(p, iid, { amount: 10, payment_id: 'early' });

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(NOT_STORED);
    expect(await paymentRows(p)).toEqual([]);
    expect(await outboxCount(deps, p, 'payments')).toBe(0);
  });

  it('when user_id names a user trigger never saw, then nothing is stored', async () => {
    const { p, iid } = await registered('known');
    expect((await pay(p, iid, { amount: 10, user_id: 'stranger' })).json()).toEqual(NOT_STORED);
    expect(await paymentRows(p)).toEqual([]);
  });
});

describe('400', () => {
  it.each<[string, Record<string, unknown>, { msg: string; status: number }]>([
    ['amount is missing', {}, BAD_AMOUNT],
    ['amount is a string', { amount: '10' }, BAD_AMOUNT],
    ['amount is negative', { amount: -0.01 }, BAD_AMOUNT],
    ['amount is above 1e20', { amount: 1.0000001e20 }, BAD_AMOUNT],
    ['amount is 1e28', { amount: 1e28 }, BAD_AMOUNT],
    ['amount is null', { amount: null }, BAD_AMOUNT],
    ['type is lowercase', { amount: 1, type: 'default' }, BAD_TYPE],
    ['type is unknown', { amount: 1, type: 'REFUND' }, BAD_TYPE],
    ['type is a number', { amount: 1, type: 1 }, BAD_TYPE],
    ['status is lowercase', { amount: 1, status: 'payment_completed' }, BAD_STATUS],
    ['status is unknown', { amount: 1, status: 'DONE' }, BAD_STATUS],
    ['payment_id is 257 characters', { amount: 1, payment_id: 'x'.repeat(257) }, BAD_PAYMENT_ID],
    ['payment_id is 10k characters', { amount: 1, payment_id: 'x'.repeat(10_000) }, BAD_PAYMENT_ID],
    ['payment_id is an object', { amount: 1, payment_id: { id: 1 } }, BAD_PAYMENT_ID],
  ])('when %s, then 400 with its text and nothing stored', async (_case, body, expected) => {
    const { p, iid } = await registered();

    const res = await pay(p, iid, body);

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(expected);
    expect(await paymentRows(p)).toEqual([]);
  });

  it('when amount is 1e309 (Infinity once parsed), then 400', async () => {
    const { p, iid } = await registered();
    const res = await payRaw(`{"token":"${p.token}","install_instance_id":"${iid}","amount":1e309}`);
    expect(res.json()).toEqual(BAD_AMOUNT);
  });

  it('when the token is missing, then 400 with the client token text', async () => {
    const res = await post(h(), 'capture-payment', { install_instance_id: 'x', amount: 1 });
    expect(res.json()).toEqual(bad('Invalid or missing project token.'));
  });
});
