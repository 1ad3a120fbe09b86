// SKAN conversion values on client responses (real-clients §3): iOS reads data.fine_conversion_value
// (JSON integer), data.coarse_conversion_value (lowercase string) and data.lock_postback (boolean)
// from trigger, capture-event, capture-payment and handle-deeplink. Android answers carry none.
// Values come from the project's schema over the install's activity in its SKAN window, and the
// fine value is never lowered. Revenue is completed payments only (as reporting counts it), and an
// answer always describes the install's current window (a new window starts from its own coarse
// and lock).
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { init, post, type Res, useClientHarness } from '../../support/client.ts';
import { newProject, type TestProject } from '../../support/harness.ts';

const h = useClientHarness();

const SCHEMA = {
  rules: [
    { fine: 1, coarse: 'low', conditions: [{ type: 'signup' }] },
    { fine: 10, coarse: 'medium', conditions: [{ type: 'event', name: 'level_up', min_count: 2 }] },
    { fine: 40, coarse: 'high', conditions: [{ type: 'revenue', amount: { min: 0, max: 100 } }] },
    { fine: 63, coarse: 'high', lock: true, conditions: [{ type: 'revenue', amount: { min: 100 } }] },
    { fine: 7, coarse: 'medium', windows: [1], conditions: [{ type: 'event', name: 'level_up' }] },
  ],
};

async function putSchema(p: TestProject, schema: unknown = SCHEMA): Promise<Res> {
  return (await h().app.inject({
    method: 'PUT',
    url: '/api/v1/skan/schema',
    headers: p.headers,
    payload: schema as object,
  })) as Res;
}

async function installOn(platform: 'IOS' | 'ANDROID', withSchema = true) {
  const p = await newProject(h().deps);
  if (withSchema) {
    expect((await putSchema(p)).statusCode).toBe(201);
  }
  const iid = randomUUID();
  expect((await init(h(), p.token, { install_instance_id: iid, platform })).statusCode).toBe(202);
  const base = { token: p.token, platform, install_instance_id: iid };
  return {
    p,
    iid,
    trigger: () => post(h(), 'trigger', { ...base, user_data: { id: 'u1' }, data: { device_data: {} } }),
    event: (name: string, extra: Record<string, unknown> = {}) =>
      post(h(), 'capture-event', { ...base, event_name: name, ...extra }),
    pay: (amount: number, extra: Record<string, unknown> = {}) =>
      post(h(), 'capture-payment', { ...base, amount, payment_id: randomUUID(), type: 'ONE_TIME', ...extra }),
    deeplink: () => post(h(), 'handle-deeplink', { ...base, deeplink_url: 'https://example.com/x' }),
  };
}

const skan = (fine: number, coarse: string, lock: boolean) => ({
  fine_conversion_value: fine,
  coarse_conversion_value: coarse,
  lock_postback: lock,
});

async function storedValues(p: TestProject, iid: string) {
  const [r] = await h().deps.sql`SELECT skan_fine, skan_coarse, skan_locked, skan_window FROM installs
    WHERE project_id = ${p.project.id} AND install_instance_id = ${iid}`;
  return r;
}

describe('iOS', () => {
  it('when an iOS user signs up, then trigger answers the schema values with iOS JSON types', async () => {
    const i = await installOn('IOS');

    const res = await i.trigger();

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      msg: expect.any(String),
      status: 200,
      data: { deeplink: null, trigger: true, ...skan(1, 'low', false) },
    });
    expect(res.body).toContain('"fine_conversion_value":1,');
    expect(res.body).toContain('"coarse_conversion_value":"low"');
    expect(res.body).toContain('"lock_postback":false');
    expect(await storedValues(i.p, i.iid)).toEqual({
      skan_fine: 1,
      skan_coarse: 'low',
      skan_locked: false,
      skan_window: 0,
    });
  });

  it('when events and payments follow, then capture-event and capture-payment answer the raised values', async () => {
    const i = await installOn('IOS');
    await i.trigger();

    const first = await i.event('level_up');
    const second = await i.event('level_up');
    const paid = await i.pay(150);

    expect(first.json().data).toEqual({ message: 'Event captured successfully', ...skan(1, 'low', false) });
    expect(second.json().data).toEqual({ message: 'Event captured successfully', ...skan(10, 'medium', false) });
    expect(paid.statusCode).toBe(201);
    expect(paid.json().data).toEqual({ message: expect.any(String), ...skan(63, 'high', true) });
    expect(Number.isInteger(paid.json().data.fine_conversion_value)).toBe(true);
    expect(typeof paid.json().data.lock_postback).toBe('boolean');
  });

  it('when handle-deeplink is called, then it answers the current values beside the deeplink', async () => {
    const i = await installOn('IOS');
    await i.trigger();
    await i.pay(20);

    const res = await i.deeplink();

    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      deeplink: 'https://example.com/x',
      is_linkrunner: false,
      processing: false,
      ...skan(40, 'high', false),
    });
  });

  it('when later activity matches a lower rule, then the fine value is not lowered', async () => {
    const i = await installOn('IOS');
    await i.trigger();
    await i.pay(20);

    await i.event('level_up');
    const res = await i.event('level_up');

    expect(res.json().data).toEqual({ message: 'Event captured successfully', ...skan(40, 'high', false) });
  });

  it('when the postback is locked, then later activity in the window changes nothing', async () => {
    const i = await installOn('IOS');
    await i.trigger();
    await i.pay(500);

    const res = await i.event('level_up');

    expect(res.json().data).toEqual({ message: 'Event captured successfully', ...skan(63, 'high', true) });
  });

  it('when the install is 4 days old, then activity counts in window 1 and keeps the earlier fine value', async () => {
    const i = await installOn('IOS');
    await i.trigger();
    await h().deps.sql`UPDATE installs SET created_at = now() - interval '4 days'
      WHERE project_id = ${i.p.project.id} AND install_instance_id = ${i.iid}`;

    const res = await i.event('level_up');

    expect(res.json().data).toEqual({ message: 'Event captured successfully', ...skan(7, 'medium', false) });
    expect(await storedValues(i.p, i.iid)).toEqual({
      skan_fine: 7,
      skan_coarse: 'medium',
      skan_locked: false,
      skan_window: 1,
    });
  });

  it('when the install is 36 days old, then its values are no longer updated', async () => {
    const i = await installOn('IOS');
    await i.trigger();
    await h().deps.sql`UPDATE installs SET created_at = now() - interval '36 days'
      WHERE project_id = ${i.p.project.id} AND install_instance_id = ${i.iid}`;

    const res = await i.pay(500);

    expect(res.json().data).toEqual({ message: expect.any(String), ...skan(1, 'low', false) });
  });

  it('when the project has no schema, then iOS answers carry no SKAN fields', async () => {
    const i = await installOn('IOS', false);

    const res = await i.trigger();

    expect(res.json().data).toEqual({ deeplink: null, trigger: true });
  });
});

describe('iOS revenue', () => {
  it('when only a PAYMENT_INITIATED payment is captured, then no revenue rule matches', async () => {
    const i = await installOn('IOS');
    await i.trigger();

    const res = await i.pay(60, { status: 'PAYMENT_INITIATED' });

    expect(res.statusCode).toBe(201);
    expect(res.json().data).toEqual({ message: expect.any(String), ...skan(1, 'low', false) });
  });

  it('when a purchase of 60 is captured as initiated then completed, then SKAN counts 60, not 120', async () => {
    const i = await installOn('IOS');
    await i.trigger();

    await i.pay(60, { status: 'PAYMENT_INITIATED' });
    const res = await i.pay(60, { status: 'PAYMENT_COMPLETED' });

    expect(res.statusCode).toBe(201);
    expect(res.json().data).toEqual({ message: expect.any(String), ...skan(40, 'high', false) });
  });
});

describe('iOS event names the client stored cleaned', () => {
  it('when the schema and the app both name an event with U+0000, then the cleaned names match', async () => {
    const i = await installOn('IOS', false);
    const rule = { fine: 9, coarse: 'medium', conditions: [{ type: 'event', name: 'level\u0000up' }] };
    expect((await putSchema(i.p, { rules: [rule] })).statusCode).toBe(201);
    await i.trigger();

    const res = await i.event('level\u0000up');

    expect(res.json().data).toEqual({ message: 'Event captured successfully', ...skan(9, 'medium', false) });
  });
});

describe('iOS in a later window', () => {
  async function lockedInWindow0ThenDay4() {
    const i = await installOn('IOS');
    await i.trigger();
    expect((await i.pay(500)).json().data).toMatchObject(skan(63, 'high', true));
    await h().deps.sql`UPDATE installs SET created_at = now() - interval '4 days'
      WHERE project_id = ${i.p.project.id} AND install_instance_id = ${i.iid}`;
    return i;
  }

  it('when a window-0-locked install calls handle-deeplink on day 4, then window 1 starts unlocked and low', async () => {
    const i = await lockedInWindow0ThenDay4();

    const res = await i.deeplink();

    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      deeplink: 'https://example.com/x',
      is_linkrunner: false,
      processing: false,
      ...skan(63, 'low', false),
    });
  });

  it('when it captures a failed payment on day 4, then the answer describes window 1, not window 0 (locked, high)', async () => {
    const i = await lockedInWindow0ThenDay4();

    const res = await i.pay(10, { status: 'PAYMENT_FAILED' });

    expect(res.statusCode).toBe(201);
    expect(res.json().data).toEqual({ message: expect.any(String), ...skan(63, 'low', false) });
    expect(await storedValues(i.p, i.iid)).toEqual({
      skan_fine: 63,
      skan_coarse: 'high',
      skan_locked: true,
      skan_window: 0,
    });
  });

  it('when it is 36 days old, then the answer describes the last window, not window 0 (locked, high)', async () => {
    const i = await lockedInWindow0ThenDay4();
    await h().deps.sql`UPDATE installs SET created_at = now() - interval '36 days'
      WHERE project_id = ${i.p.project.id} AND install_instance_id = ${i.iid}`;

    const res = await i.deeplink();

    expect(res.json().data).toMatchObject(skan(63, 'low', false));
  });
});

describe('Android', () => {
  it('when an Android install does the same, then no response carries SKAN fields and nothing is stored', async () => {
    const i = await installOn('ANDROID');

    const answers = [await i.trigger(), await i.event('level_up'), await i.pay(150), await i.deeplink()];

    for (const res of answers) {
      expect(Object.keys(res.json().data)).not.toContain('fine_conversion_value');
      expect(res.body).not.toContain('conversion_value');
      expect(res.body).not.toContain('lock_postback');
    }
    expect(await storedValues(i.p, i.iid)).toEqual({
      skan_fine: null,
      skan_coarse: null,
      skan_locked: false,
      skan_window: null,
    });
  });
});
