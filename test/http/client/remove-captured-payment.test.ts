// POST /api/client/remove-captured-payment (real-clients §4.7; catalog §4c; spec: response not
// shown, so 200 {msg, status, data: {message, removed}}). payment_id removes that payment (of
// user_id too, when given); user_id alone (or payment_id "") removes every payment of the user.
// Each removal marks payments.removed_at and writes a `payments` fact with sign -1, the same
// amount and the capture's time, day and attribution, so sum(amount * sign) nets to zero on the
// capture's campaign; repeats remove nothing.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ATTRIBUTION_WAIT_MS } from '../../../src/domain/facts/enrich-facts.ts';
import {
  attribute,
  attributedInstall,
  campaignWithListings,
  clickLink,
  flushFacts,
  init,
  post,
  type Res,
  randomIp,
  useClientHarness,
} from '../../support/client.ts';
import { netRevenue, outboxCount, paymentFacts, signUp } from '../../support/commerce.ts';
import { newProject, type TestProject } from '../../support/harness.ts';

const h = useClientHarness();

const removedAnswer = (message: string, removed: number) => ({ msg: message, status: 200, data: { message, removed } });
const NOTHING = removedAnswer('No matching payment found; nothing was removed.', 0);
const ONE = removedAnswer('Removed 1 payment.', 1);
const NEITHER = { msg: 'Either payment_id or user_id is required.', status: 400 };

async function registered(userId = 'payer', timezone?: string) {
  const { deps } = h();
  const p = await newProject(deps, { timezone });
  const iid = randomUUID();
  expect((await init(h(), p.token, { install_instance_id: iid })).statusCode).toBe(202);
  await attribute(h(), p, iid);
  await signUp(h(), p, iid, userId);
  return { p, iid, userId };
}

async function pay(p: TestProject, iid: string, body: Record<string, unknown>): Promise<void> {
  const res = await post(h(), 'capture-payment', { token: p.token, install_instance_id: iid, ...body });
  expect(res.statusCode).toBe(201);
}

function remove(p: TestProject, iid: string, body: Record<string, unknown>): Promise<Res> {
  return post(h(), 'remove-captured-payment', {
    token: p.token,
    platform: 'ANDROID',
    install_instance_id: iid,
    ...body,
  });
}

function liveRows(p: TestProject) {
  return h().deps.sql<{ payment_id: string | null; user_id: string }[]>`
    SELECT payment_id, user_id FROM payments WHERE project_id = ${p.project.id} AND removed_at IS NULL ORDER BY id`;
}

describe('200 removed', () => {
  it('when a payment_id is removed, then removed_at is set and a -1 fact nets revenue to zero', async () => {
    const { deps } = h();
    const p = await newProject(deps, { timezone: 'Asia/Kolkata' });
    const { campaign, iid } = await attributedInstall(h(), p);
    await signUp(h(), p, iid, 'u-1');
    await pay(p, iid, { amount: 49.99, payment_id: 'ord-1', type: 'ONE_TIME', status: 'PAYMENT_COMPLETED' });
    await flushFacts(h());

    // iOS removePayment body: user_id, optional payment_id and data.device_data.
    const res = await remove(p, iid, { payment_id: 'ord-1', user_id: 'u-1', data: { device_data: { idfv: 'X' } } });

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(ONE);
    const [row] = await deps.sql<{ id: string; captured_at: Date; removed_at: Date | null }[]>`
      SELECT id::text, captured_at, removed_at FROM payments WHERE project_id = ${p.project.id}`;
    expect(row?.removed_at).toBeInstanceOf(Date);
    await flushFacts(h());
    const [capture, removal, ...more] = await paymentFacts(deps, p);
    expect(more).toEqual([]);
    expect(capture).toMatchObject({ sign: 1, amount: '49.99', payment_row: row?.id, campaign_id: campaign.id });
    expect(removal).toEqual({
      event_id: expect.stringMatching(/^pay_/),
      install_instance_id: iid,
      user_id: 'u-1',
      payment_id: 'ord-1',
      payment_row: row?.id,
      type: 'ONE_TIME',
      status: 'PAYMENT_COMPLETED',
      amount: '49.99',
      sign: -1,
      ts: capture?.ts,
      recorded_at: expect.any(String),
      day: capture?.day,
      platform: 'ANDROID',
      campaign_id: campaign.id,
      display_id: campaign.displayId,
    });
    expect(removal?.event_id).not.toBe(capture?.event_id);
    expect(removal?.ts).toBe(row?.captured_at.toISOString().replace('T', ' ').replace('Z', ''));
    expect((removal?.recorded_at ?? '') >= (capture?.recorded_at ?? '')).toBe(true);
    expect(await netRevenue(deps, p, 'u-1')).toBe('0');
  });

  it('when only user_id is given, then every payment of that user is removed and nobody else’s', async () => {
    const { deps } = h();
    const { p, iid } = await registered('refunded');
    const other = randomUUID();
    await init(h(), p.token, { install_instance_id: other });
    await attribute(h(), p, other);
    await signUp(h(), p, other, 'kept');
    await pay(p, iid, { amount: 10, payment_id: 'a' });
    await pay(p, iid, { amount: 20.5 });
    await pay(p, iid, { amount: 0.25, payment_id: 'c' });
    await pay(p, other, { amount: 7, payment_id: 'k' });

    const res = await remove(p, iid, { user_id: 'refunded' });

    expect(res.json()).toEqual(removedAnswer('Removed 3 payments.', 3));
    expect(await liveRows(p)).toEqual([{ payment_id: 'k', user_id: 'kept' }]);
    await flushFacts(h());
    expect(await netRevenue(deps, p, 'refunded')).toBe('0');
    expect(await netRevenue(deps, p, 'kept')).toBe('7');
    expect((await paymentFacts(deps, p)).filter((f) => f.sign === -1)).toHaveLength(3);
  });

  it('when Android sends payment_id "" with a user_id, then all of that user’s payments are removed', async () => {
    const { p, iid } = await registered('android-user');
    await pay(p, iid, { amount: 1 });
    await pay(p, iid, { amount: 2 });

    const res = await remove(p, iid, { payment_id: '', user_id: 'android-user' });

    expect(res.json()).toEqual(removedAnswer('Removed 2 payments.', 2));
    expect(await liveRows(p)).toEqual([]);
  });

  it('when payment_id and a different user_id are given, then nothing is removed', async () => {
    const { p, iid } = await registered('owner');
    await pay(p, iid, { amount: 1, payment_id: 'mine' });

    expect((await remove(p, iid, { payment_id: 'mine', user_id: 'someone-else' })).json()).toEqual(NOTHING);
    expect(await liveRows(p)).toHaveLength(1);
  });

  it('when the removal is sent twice, then the second removes nothing and revenue stays at zero', async () => {
    const { deps } = h();
    const { p, iid } = await registered();
    await pay(p, iid, { amount: 5, payment_id: 'twice' });

    expect((await remove(p, iid, { payment_id: 'twice' })).json()).toEqual(ONE);
    expect((await remove(p, iid, { payment_id: 'twice' })).json()).toEqual(NOTHING);

    expect(await outboxCount(deps, p, 'payments')).toBe(2);
    await flushFacts(h());
    expect(await netRevenue(deps, p)).toBe('0');
  });

  it('when the same removal is sent 10 times at once, then each payment gets exactly one -1 fact', async () => {
    const { deps } = h();
    const { p, iid } = await registered('burst');
    await pay(p, iid, { amount: 3, payment_id: 'b-1' });
    await pay(p, iid, { amount: 4 });

    const answers = await Promise.all(Array.from({ length: 10 }, () => remove(p, iid, { user_id: 'burst' })));

    const removed = answers.map((r) => r.json().data.removed as number);
    expect(removed.reduce((a, b) => a + b, 0)).toBe(2);
    await flushFacts(h());
    expect((await paymentFacts(deps, p)).filter((f) => f.sign === -1)).toHaveLength(2);
    expect(await netRevenue(deps, p)).toBe('0');
  });

  it('when a removed payment_id is captured again, then it stays a duplicate (the id is used)', async () => {
    const { p, iid } = await registered();
    await pay(p, iid, { amount: 5, payment_id: 'once' });
    await remove(p, iid, { payment_id: 'once' });

    const res = await post(h(), 'capture-payment', {
      token: p.token,
      install_instance_id: iid,
      amount: 5,
      payment_id: 'once',
    });

    expect(res.json().data.message).toBe('Payment already captured: duplicate payment_id ignored.');
  });

  it('when the capture was late at night in the project zone, then the -1 row keeps the capture day', async () => {
    const { deps } = h();
    const { p, iid } = await registered('night', 'Pacific/Kiritimati');
    const realNow = deps.now;
    deps.now = () => Date.parse('2024-03-01T10:30:00Z'); // 2024-03-02 00:30 in UTC+14
    try {
      await pay(p, iid, { amount: 8, payment_id: 'late' });
    } finally {
      deps.now = realNow;
    }

    await remove(p, iid, { payment_id: 'late' });

    await flushFacts(h());
    expect((await paymentFacts(deps, p)).map((f) => [f.sign, f.ts, f.day])).toEqual([
      [1, '2024-03-01 10:30:00.000', '2024-03-02'],
      [-1, '2024-03-01 10:30:00.000', '2024-03-02'],
    ]);
  });
});

describe('200 removed, attribution changed since the capture', () => {
  it("when the capture went out organic after the wait and the install was decided later, then the refund nets out on the capture's campaign", async () => {
    // Enriched again when written, the refund landed on the campaign decided since (-12.5 there)
    // while the capture stayed organic (+12.5): neither key netted to zero.
    const { deps } = h();
    const p = await newProject(deps);
    const campaign = await campaignWithListings(deps, p);
    const ip = randomIp();
    const { referrer } = await clickLink(h(), campaign, { ip });
    await flushFacts(h());
    const iid = randomUUID();
    expect(
      (await init(h(), p.token, { install_instance_id: iid, device_data: { install_ref: referrer } }, ip)).statusCode,
    ).toBe(202);
    await signUp(h(), p, iid, 'u-late');
    const pay = await post(h(), 'capture-payment', {
      token: p.token,
      platform: 'ANDROID',
      install_instance_id: iid,
      amount: 12.5,
      payment_id: 'late-1',
    });
    expect(pay.statusCode).toBe(201);
    // The attribution is late (a backlog, a network resolver retrying): the writer stops waiting.
    const realNow = deps.now;
    const later = realNow() + ATTRIBUTION_WAIT_MS + 60_000;
    deps.now = () => later;
    try {
      await flushFacts(h());
    } finally {
      deps.now = realNow;
    }
    expect((await attribute(h(), p, iid))?.method).toBe('play_referrer');

    expect((await remove(p, iid, { payment_id: 'late-1' })).json()).toEqual(ONE);
    await flushFacts(h());

    const rs = await deps.ch.query({
      query: `SELECT campaign_id, toString(sum(amount * sign)) AS net, toString(sum(sign)) AS n FROM payments
        WHERE project_id = {p:String} GROUP BY campaign_id ORDER BY campaign_id`,
      format: 'JSONEachRow',
      query_params: { p: p.project.id },
    });
    expect(await rs.json()).toEqual([{ campaign_id: 0, net: '0', n: '0' }]);
  });
});

describe('200 nothing removed', () => {
  it('when the payment_id is unknown, then 200 with the nothing-removed text', async () => {
    const { deps } = h();
    const { p, iid } = await registered();

    const res = await remove(p, iid, { payment_id: 'no-such' });

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(NOTHING);
    expect(await outboxCount(deps, p, 'payments')).toBe(0);
  });

  it('when the payment belongs to another project, then it is not removed', async () => {
    const a = await registered();
    const b = await registered();
    await pay(a.p, a.iid, { amount: 1, payment_id: 'shared' });

    expect((await remove(b.p, b.iid, { payment_id: 'shared' })).json()).toEqual(NOTHING);
    expect(await liveRows(a.p)).toHaveLength(1);
  });
});

describe('400', () => {
  it.each<[string, Record<string, unknown>]>([
    ['neither id is sent', {}],
    ['both are "" (Android with nothing given)', { payment_id: '', user_id: '' }],
    ['both are null', { payment_id: null, user_id: null }],
  ])('when %s, then 400 with its text', async (_case, body) => {
    const { p, iid } = await registered();
    const res = await remove(p, iid, body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(NEITHER);
  });

  it('when payment_id is an object, then 400 with the payment_id text', async () => {
    const { p, iid } = await registered();
    const res = await remove(p, iid, { payment_id: { a: 1 } });
    expect(res.json()).toEqual({
      msg: 'payment_id must be a string or number of at most 256 characters.',
      status: 400,
    });
  });

  it('when the token is wrong, then 400 with the client token text', async () => {
    const res = await post(h(), 'remove-captured-payment', { token: 'pt_bad', user_id: 'x' });
    expect(res.json()).toEqual({ msg: 'Invalid or missing project token.', status: 400 });
  });
});
