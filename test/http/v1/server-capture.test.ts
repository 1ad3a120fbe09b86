// Server-side twins (docs event-capture.mdx, revenue-tracking.mdx; real-clients §7; not in the
// spec): POST /api/v1/capture-event, /api/v1/capture-payment, /api/v1/remove-payment with the
// server key (data family texts). The user's registering install (trigger) carries the facts.
// Deviation from the docs: capture-event's 201 says status 201, not 200 (envelope = HTTP status).
import { describe, expect, it } from 'vitest';
import { attributedInstall, flushFacts, type Res, useClientHarness } from '../../support/client.ts';
import { eventFacts, netRevenue, paymentFacts, signUp } from '../../support/commerce.ts';
import { newProject, type TestProject } from '../../support/harness.ts';

const h = useClientHarness();

const UNAUTHORIZED = { msg: 'Unauthorized access.', status: 401 };
const RECEIVED = { msg: 'Event capture request received!', status: 201, data: null };
const USER_REQUIRED = { msg: 'user_id must be a non-empty string of at most 256 characters.', status: 400 };
const CAPTURED = {
  msg: 'Payment captured successfully',
  status: 201,
  data: { message: 'Payment captured successfully' },
};

function v1(path: string, p: TestProject | undefined, payload: unknown, header = 'service-key'): Promise<Res> {
  return h().app.inject({
    method: 'POST',
    url: `/api/v1/${path}`,
    headers: p ? { [header]: p.serverKey } : {},
    payload: payload as Record<string, unknown>,
  }) as Promise<Res>;
}

/** An attributed install whose user signed up through trigger. */
async function attributedUser(userId: string) {
  const p = await newProject(h().deps);
  const { campaign, iid } = await attributedInstall(h(), p);
  await signUp(h(), p, iid, userId);
  return { p, campaign, iid };
}

describe('POST /api/v1/capture-event', () => {
  it('when a registered user_id is sent, then 201 and the fact carries the user’s install and campaign', async () => {
    const { deps } = h();
    const { p, campaign, iid } = await attributedUser('srv-1');

    const res = await v1('capture-event', p, { event_name: 'renewal', event_data: { amount: 9.5 }, user_id: 'srv-1' });

    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual(RECEIVED);
    await flushFacts(h());
    expect(await eventFacts(deps, p)).toMatchObject([
      {
        install_instance_id: iid,
        user_id: 'srv-1',
        event_name: 'renewal',
        amount: '9.5',
        has_amount: 1,
        campaign_id: campaign.id,
      },
    ]);
  });

  it('when the existing linkrunner-key header is used, then it is accepted', async () => {
    const { p } = await attributedUser('srv-2');
    const res = await v1('capture-event', p, { event_name: 'x', user_id: 'srv-2' }, 'linkrunner-key');
    expect(res.json()).toEqual(RECEIVED);
  });

  it('when the user never signed up, then 200 and nothing is stored', async () => {
    const p = await newProject(h().deps);
    const res = await v1('capture-event', p, { event_name: 'x', user_id: 'ghost' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      msg: 'Event not stored: the user is not registered. Call trigger first.',
      status: 200,
      data: null,
    });
  });

  it('when the same event_id comes twice, then the second is a 200 duplicate', async () => {
    const { p } = await attributedUser('srv-3');
    await v1('capture-event', p, { event_name: 'x', user_id: 'srv-3', event_id: 's-1' });
    const res = await v1('capture-event', p, { event_name: 'x', user_id: 'srv-3', event_id: 's-1' });
    expect(res.json()).toEqual({ msg: 'Event already captured: duplicate event_id ignored.', status: 200, data: null });
  });

  it.each<[string, Record<string, unknown>, { msg: string; status: number }]>([
    ['user_id is missing', { event_name: 'x' }, USER_REQUIRED],
    ['user_id is blank', { event_name: 'x', user_id: ' ' }, USER_REQUIRED],
    [
      'event_name is missing',
      { user_id: 'u' },
      { msg: 'event_name must be a non-empty string of at most 255 characters.', status: 400 },
    ],
  ])('when %s, then 400 with its text', async (_case, body, expected) => {
    const p = await newProject(h().deps);
    const res = await v1('capture-event', p, body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(expected);
  });
});

describe('POST /api/v1/capture-payment', () => {
  it('when a registered user pays, then 201 and the payment counts for the user’s install', async () => {
    const { deps } = h();
    const { p, campaign, iid } = await attributedUser('payer-1');

    const res = await v1('capture-payment', p, {
      user_id: 'payer-1',
      payment_id: 'inv-1',
      amount: 120,
      type: 'SUBSCRIPTION_RENEWED',
    });

    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual(CAPTURED);
    await flushFacts(h());
    expect(await paymentFacts(deps, p)).toMatchObject([
      {
        install_instance_id: iid,
        user_id: 'payer-1',
        payment_id: 'inv-1',
        type: 'SUBSCRIPTION_RENEWED',
        amount: '120',
        sign: 1,
        campaign_id: campaign.id,
      },
    ]);
  });

  it('when a payment_id repeats (also after a client capture), then 200 duplicate', async () => {
    const { p } = await attributedUser('payer-2');
    await v1('capture-payment', p, { user_id: 'payer-2', payment_id: 'inv-2', amount: 1 });
    const res = await v1('capture-payment', p, { user_id: 'payer-2', payment_id: 'inv-2', amount: 1 });
    expect(res.json()).toEqual({
      msg: 'Payment already captured: duplicate payment_id ignored.',
      status: 200,
      data: { message: 'Payment already captured: duplicate payment_id ignored.' },
    });
  });

  it.each<[string, Record<string, unknown>, { msg: string; status: number }]>([
    ['user_id is missing', { amount: 1 }, USER_REQUIRED],
    [
      'amount is a string',
      { user_id: 'u', amount: '1' },
      { msg: 'amount must be a number from 0 to 1e20.', status: 400 },
    ],
  ])('when %s, then 400 with its text', async (_case, body, expected) => {
    const p = await newProject(h().deps);
    expect((await v1('capture-payment', p, body)).json()).toEqual(expected);
  });
});

describe('POST /api/v1/remove-payment', () => {
  it('when user_id alone is given, then every payment of the user is removed and revenue nets to zero', async () => {
    const { deps } = h();
    const { p, iid } = await attributedUser('refund-me');
    await v1('capture-payment', p, { user_id: 'refund-me', payment_id: 'a', amount: 10 });
    await v1('capture-payment', p, { user_id: 'refund-me', amount: 5.25 });

    const res = await v1('remove-payment', p, { user_id: 'refund-me' });

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      msg: 'Removed 2 payments.',
      status: 200,
      data: { message: 'Removed 2 payments.', removed: 2 },
    });
    await flushFacts(h());
    expect(await netRevenue(deps, p, 'refund-me')).toBe('0');
    expect((await paymentFacts(deps, p)).every((f) => f.install_instance_id === iid)).toBe(true);
  });

  it('when no payment matches, then 400 (docs: no payment found)', async () => {
    const p = await newProject(h().deps);
    const res = await v1('remove-payment', p, { payment_id: 'nope' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ msg: 'No matching payment found; nothing was removed.', status: 400 });
  });

  it('when neither id is given, then 400 with its text', async () => {
    const p = await newProject(h().deps);
    const res = await v1('remove-payment', p, {});
    expect(res.json()).toEqual({ msg: 'Either payment_id or user_id is required.', status: 400 });
  });
});

describe('401', () => {
  it.each(['capture-event', 'capture-payment', 'remove-payment'])(
    'when %s has no key, then 401 Unauthorized access.',
    async (path) => {
      const res = await v1(path, undefined, { user_id: 'u', event_name: 'x', amount: 1 });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual(UNAUTHORIZED);
    },
  );

  it('when the project token is sent as the key, then 401', async () => {
    const p = await newProject(h().deps);
    const res = await h().app.inject({
      method: 'POST',
      url: '/api/v1/capture-event',
      headers: { 'service-key': p.token },
      payload: { user_id: 'u', event_name: 'x' },
    });
    expect(res.json()).toEqual(UNAUTHORIZED);
  });
});
