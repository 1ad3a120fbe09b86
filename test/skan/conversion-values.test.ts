// SKAN 4 conversion values (README "SKAdNetwork conversion values",
// real-clients §3) across schema versions switched mid-window, window boundaries, revenue rules
// with refunds and non-revenue payment types, concurrent activity of one install, the wire types
// of every answer iOS reads, and schema bodies that must be refused with 400, never a 5xx.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { init, post, type Res, useClientHarness } from '../support/client.ts';
import { newProject, type TestProject } from '../support/harness.ts';

const h = useClientHarness();

const putSchema = async (p: TestProject, schema: unknown): Promise<Res> =>
  (await h().app.inject({
    method: 'PUT',
    url: '/api/v1/skan/schema',
    headers: p.headers,
    payload: schema as object,
  })) as Res;

const skan = (fine: number, coarse: string, lock: boolean) => ({
  fine_conversion_value: fine,
  coarse_conversion_value: coarse,
  lock_postback: lock,
});

async function iosInstall(schema: unknown, opts: { timezone?: string } = {}) {
  const p = await newProject(h().deps, opts);
  if (schema) {
    expect((await putSchema(p, schema)).statusCode).toBe(201);
  }
  const iid = randomUUID();
  expect((await init(h(), p.token, { install_instance_id: iid, platform: 'IOS' })).statusCode).toBe(202);
  const base = { token: p.token, platform: 'IOS', install_instance_id: iid };
  const i = {
    p,
    iid,
    trigger: () => post(h(), 'trigger', { ...base, user_data: { id: `u-${iid}` }, data: { device_data: {} } }),
    event: (name: string, extra: Record<string, unknown> = {}) =>
      post(h(), 'capture-event', { ...base, event_name: name, ...extra }),
    pay: (amount: number, extra: Record<string, unknown> = {}) =>
      post(h(), 'capture-payment', { ...base, amount, payment_id: randomUUID(), type: 'ONE_TIME', ...extra }),
    remove: (paymentId: string) =>
      post(h(), 'remove-captured-payment', { ...base, user_id: `u-${iid}`, payment_id: paymentId }),
    deeplink: () => post(h(), 'handle-deeplink', { ...base, deeplink_url: 'https://example.com/x' }),
    age: async (ms: number) => {
      await h().deps.sql`UPDATE installs SET created_at = now() - ${`${ms} milliseconds`}::interval
        WHERE project_id = ${p.project.id} AND install_instance_id = ${iid}`;
    },
  };
  return i;
}

const HOUR = 3_600_000;

describe('schema versions switched mid-window', () => {
  const V1 = {
    rules: [
      { fine: 20, coarse: 'medium', conditions: [{ type: 'signup' }] },
      { fine: 40, coarse: 'high', conditions: [{ type: 'event', name: 'buy' }] },
    ],
  };
  const V2_LOWER = { rules: [{ fine: 5, coarse: 'low', conditions: [{ type: 'event', name: 'buy' }] }] };
  const V2_HIGHER = { rules: [{ fine: 50, coarse: 'high', lock: true, conditions: [{ type: 'event', name: 'buy' }] }] };

  it('when a new version gives lower values for the same activity, then the answered values are not lowered', async () => {
    const i = await iosInstall(V1);
    await i.trigger();
    expect((await i.event('buy')).json().data).toMatchObject(skan(40, 'high', false));
    expect((await putSchema(i.p, V2_LOWER)).statusCode).toBe(201);

    const res = await i.event('buy');

    expect(res.json().data).toEqual({ message: 'Event captured successfully', ...skan(40, 'high', false) });
  });

  it('when a new version gives higher values and a lock, then the next activity raises and locks', async () => {
    const i = await iosInstall(V1);
    await i.trigger();
    await i.event('buy');
    expect((await putSchema(i.p, V2_HIGHER)).statusCode).toBe(201);

    const res = await i.event('other');
    const after = await i.deeplink();

    expect(res.json().data).toEqual({ message: 'Event captured successfully', ...skan(50, 'high', true) });
    expect(after.json().data).toMatchObject(skan(50, 'high', true));
  });

  it('when a lock was set under v1 and v2 would give more, then the window stays locked at v1 values', async () => {
    const i = await iosInstall({
      rules: [{ fine: 10, coarse: 'medium', lock: true, conditions: [{ type: 'signup' }] }],
    });
    await i.trigger();
    expect((await putSchema(i.p, V2_HIGHER)).statusCode).toBe(201);

    const res = await i.event('buy');

    expect(res.json().data).toEqual({ message: 'Event captured successfully', ...skan(10, 'medium', true) });
  });
});

describe('window boundaries (0 = days 0-2, 1 = 3-7, 2 = 8-35 after the first init)', () => {
  const SCHEMA = {
    rules: [
      { fine: 1, coarse: 'low', windows: [0], conditions: [{ type: 'event', name: 'e' }] },
      { fine: 2, coarse: 'medium', windows: [1], conditions: [{ type: 'event', name: 'e' }] },
      { fine: 3, coarse: 'high', windows: [2], conditions: [{ type: 'event', name: 'e' }] },
    ],
  };

  it.each([
    [71.9, 1, 'low'],
    [72.1, 2, 'medium'],
    [191.9, 2, 'medium'],
    [192.1, 3, 'high'],
    [35 * 24 + 23.9, 3, 'high'],
  ])('when an event comes %s hours after install, then the value is %s / %s', async (hours, fine, coarse) => {
    const i = await iosInstall(SCHEMA);
    await i.trigger();
    await i.age(hours * HOUR);

    const res = await i.event('e');

    expect(res.json().data).toEqual({ message: 'Event captured successfully', ...skan(fine, coarse, false) });
  });

  it('when the project is at +5:30 and the install is 2 days 23 hours old, then it is still window 0', async () => {
    const i = await iosInstall(SCHEMA, { timezone: 'Asia/Kolkata' });
    await i.trigger();
    await i.age(71 * HOUR);

    const res = await i.event('e');

    expect(res.json().data).toMatchObject(skan(1, 'low', false));
  });
});

describe('revenue rules', () => {
  const SCHEMA = {
    rules: [
      { fine: 1, coarse: 'low', conditions: [{ type: 'signup' }] },
      { fine: 30, coarse: 'medium', conditions: [{ type: 'revenue', amount: { min: 0, max: 100 } }] },
      { fine: 60, coarse: 'high', conditions: [{ type: 'revenue', amount: { min: 100 } }] },
    ],
  };

  it('when two completed payments of 60 arrive, then their sum (120) is what the rule sees', async () => {
    const i = await iosInstall(SCHEMA);
    await i.trigger();
    await i.pay(60);

    const res = await i.pay(60);

    expect(res.statusCode).toBe(201);
    expect(res.json().data).toEqual({ message: expect.any(String), ...skan(60, 'high', false) });
  });

  it.each(['SUBSCRIPTION_REFUNDED', 'FUNDS_WITHDRAWAL', 'SUBSCRIPTION_CANCELLED', 'SUBSCRIPTION_BILLING_ISSUE'])(
    'when a completed %s payment of 150 arrives, then it is not revenue',
    async (type) => {
      const i = await iosInstall(SCHEMA);
      await i.trigger();

      const res = await i.pay(150, { type });

      expect(res.statusCode).toBe(201);
      expect(res.json().data).toEqual({ message: expect.any(String), ...skan(1, 'low', false) });
    },
  );

  it('when a payment is removed, then the values already answered stay (never lowered) and a repeat id adds nothing', async () => {
    const i = await iosInstall(SCHEMA);
    await i.trigger();
    const paymentId = randomUUID();
    expect((await i.pay(50, { payment_id: paymentId })).json().data).toMatchObject(skan(30, 'medium', false));

    const removed = await i.remove(paymentId);
    const repeat = await i.pay(50, { payment_id: paymentId });
    const more = await i.pay(40);

    expect(removed.statusCode).toBe(200);
    expect(repeat.json().data).toMatchObject(skan(30, 'medium', false));
    // 50 + 40 = 90: the repeated payment_id is not counted a second time.
    expect(more.json().data).toMatchObject(skan(30, 'medium', false));
  });

  it('when a payment of 0 is completed, then a revenue range starting at 0 does not match (no money in)', async () => {
    const i = await iosInstall(SCHEMA);
    await i.trigger();

    const res = await i.pay(0);

    expect(res.json().data).toMatchObject(skan(1, 'low', false));
  });
});

describe('event amount rules', () => {
  it('when events carry amounts, then the sum of the numeric ones decides; a string amount is not counted', async () => {
    const i = await iosInstall({
      rules: [{ fine: 12, coarse: 'medium', conditions: [{ type: 'event', name: 'buy', amount: { min: 50 } }] }],
    });
    await i.trigger();
    await i.event('buy', { event_data: { amount: 30 } });
    const notYet = await i.event('buy', { event_data: { amount: '30' } });

    const reached = await i.event('buy', { event_data: { amount: 20.5 } });

    expect(notYet.json().data).toMatchObject(skan(0, 'low', false));
    expect(reached.json().data).toMatchObject(skan(12, 'medium', false));
  });
});

describe('concurrent activity', () => {
  it('when 30 events of two iOS installs arrive at once, then every one is counted in its install window', async () => {
    const schema = {
      rules: [{ fine: 15, coarse: 'high', conditions: [{ type: 'event', name: 'tap', min_count: 15 }] }],
    };
    const a = await iosInstall(schema);
    const p = a.p;
    const iid2 = randomUUID();
    expect((await init(h(), p.token, { install_instance_id: iid2, platform: 'IOS' })).statusCode).toBe(202);
    await a.trigger();
    await post(h(), 'trigger', {
      token: p.token,
      platform: 'IOS',
      install_instance_id: iid2,
      user_data: { id: `u-${iid2}` },
      data: { device_data: {} },
    });
    const send = (iid: string) =>
      post(h(), 'capture-event', { token: p.token, platform: 'IOS', install_instance_id: iid, event_name: 'tap' });

    const all = await Promise.all(Array.from({ length: 30 }, (_, k) => send(k % 2 === 0 ? a.iid : iid2)));

    expect(all.map((r) => r.statusCode)).toEqual(Array(30).fill(200));
    const rows = await h().deps.sql`SELECT install_instance_id, count::int AS n FROM skan_activity
      WHERE project_id = ${p.project.id} AND kind = 'event' ORDER BY install_instance_id`;
    expect(rows.map((r) => r.n)).toEqual([15, 15]);
    const values = await h().deps.sql`SELECT skan_fine FROM installs WHERE project_id = ${p.project.id}`;
    expect(values.map((r) => r.skan_fine)).toEqual([15, 15]);
  });
});

describe('wire format iOS reads', () => {
  it('when a repeated payment_id or event_id is answered, then the SKAN fields are still there with iOS types', async () => {
    const i = await iosInstall({ rules: [{ fine: 7, coarse: 'medium', conditions: [{ type: 'signup' }] }] });
    await i.trigger();
    const paymentId = randomUUID();
    await i.pay(5, { payment_id: paymentId });
    await i.event('x', { event_id: 'e-1' });

    const dupPay = await i.pay(5, { payment_id: paymentId });
    const dupEvent = await i.event('x', { event_id: 'e-1' });

    for (const res of [dupPay, dupEvent]) {
      expect(res.statusCode).toBeLessThan(300);
      expect(res.body).toContain('"fine_conversion_value":7');
      expect(res.body).toContain('"coarse_conversion_value":"medium"');
      expect(res.body).toContain('"lock_postback":false');
    }
  });

  it('when an iOS install has values, then init answers carry none (iOS never reads init)', async () => {
    const i = await iosInstall({ rules: [{ fine: 7, coarse: 'medium', conditions: [{ type: 'signup' }] }] });
    await i.trigger();

    const res = await init(h(), i.p.token, { install_instance_id: i.iid, platform: 'IOS' });

    expect(res.statusCode).toBe(202);
    expect(res.body).not.toContain('conversion_value');
  });
});

describe('400, never 5xx, for schema bodies', () => {
  it.each<[string, unknown]>([
    ['an array', []],
    ['a string', 'rules'],
    ['rules null', { rules: null }],
    [
      'an empty range',
      { rules: [{ fine: 1, coarse: 'low', conditions: [{ type: 'revenue', amount: { min: 5, max: 5 } }] }] },
    ],
    ['fine as a string', { rules: [{ fine: '1', coarse: 'low', conditions: [{ type: 'signup' }] }] }],
    ['fine 1.5', { rules: [{ fine: 1.5, coarse: 'low', conditions: [{ type: 'signup' }] }] }],
    ['coarse upper case', { rules: [{ fine: 1, coarse: 'HIGH', conditions: [{ type: 'signup' }] }] }],
    ['window 3', { rules: [{ fine: 1, coarse: 'low', windows: [3], conditions: [{ type: 'signup' }] }] }],
    ['an unknown condition', { rules: [{ fine: 1, coarse: 'low', conditions: [{ type: 'install' }] }] }],
    [
      'a huge min_count',
      { rules: [{ fine: 1, coarse: 'low', conditions: [{ type: 'event', name: 'a', min_count: 1e300 }] }] },
    ],
  ])('when the body is %s, then 400 with the schema text', async (_n, body) => {
    const p = await newProject(h().deps);

    const res = await h().app.inject({
      method: 'PUT',
      url: '/api/v1/skan/schema',
      headers: { ...p.headers, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ msg: expect.stringMatching(/^Invalid SKAN schema: /), status: 400 });
  });
});
