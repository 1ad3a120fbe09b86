// The catalog §4c per-route lists for /api/client: token, platform, install_instance_id and
// device_data caps on every route; capture-event names and amounts; capture-payment amounts, types,
// ids and repeats; remove-captured-payment; init repeats; integrations; handle-deeplink; client
// timestamps. Every case goes through the oracle (documented status, no 5xx, under 1 s); where §4c
// or the spec fixes the answer, the status and the stored state are asserted too.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MSG } from '../../src/http/messages.ts';
import { check, expectAlive, property, type Res, Tally } from '../support/bad-input-kit.ts';
import {
  CLIENT_ROUTES,
  type Fixture,
  makeFixture,
  type Route,
  requestOf,
  useBadInputHarness,
} from '../support/bad-input-routes.ts';
import { BAD_STRINGS, badLiteral, nested, withRaw } from '../support/bad-input-values.ts';
import { flushFacts, installRows } from '../support/client.ts';
import { paymentFacts } from '../support/commerce.ts';

const h = useBadInputHarness();
const tally = new Tally('client-routes.test.ts');
let x: Fixture;

beforeAll(async () => {
  x = await makeFixture(h());
});
afterAll(() => {
  console.log(tally.line());
});

const route = (path: string): Route => {
  const r = CLIENT_ROUTES.find((c) => c.path === `/api/client/${path}`);
  if (!r) {
    throw new Error(`no route ${path}`);
  }
  return r;
};
const baseOf = (r: Route) => (r.body as (x: Fixture) => Record<string, unknown>)(x);

function sendRaw(r: Route, body: string, label = ''): Promise<Res> {
  return check(h().app, tally, { ...requestOf(r, x, { body }), label: `${r.name} ${label}` }, r.allowed);
}
function send(r: Route, over: Record<string, unknown>, label = ''): Promise<Res> {
  return sendRaw(r, JSON.stringify({ ...baseOf(r), ...over }), label);
}

describe('every client route: token, platform, install_instance_id, device_data', () => {
  it.each(CLIENT_ROUTES.map((r) => [r.name, r] as const))(
    'when %s gets a bad token, then 400 (attribution-data 401) with the token text',
    async (_name, r) => {
      const fail = r.path.endsWith('attribution-data') ? 401 : 400;
      for (const token of [
        undefined,
        '',
        ' ',
        x.p.serverKey,
        `${x.p.token} `,
        x.p.token.toUpperCase(),
        'a'.repeat(300),
        '\u0000',
        7,
        null,
        [x.p.token],
        { t: 1 },
      ]) {
        const res = await send(r, { token }, 'token');
        expect(res.statusCode, `token ${JSON.stringify(token)}`).toBe(fail);
        expect(res.json()).toEqual({ msg: MSG.clientTokenInvalid, status: fail });
      }
    },
  );

  it.each(CLIENT_ROUTES.map((r) => [r.name, r] as const))(
    'when %s gets odd platforms, install ids and device_data, then only documented statuses',
    async (_name, r) => {
      for (const platform of [
        'ios',
        'IOS',
        'WEB',
        'REACT_NATIVE',
        'FLUTTER',
        '',
        null,
        1,
        '\u202eSOI',
        'x'.repeat(1000),
      ]) {
        await send(r, { platform }, 'platform');
      }
      for (const iid of [
        'not-a-uuid',
        '00000000-0000-0000-0000-000000000000',
        x.iid.toUpperCase(),
        ' ',
        'a'.repeat(129),
        '\u0000',
        '\ud800',
        12,
      ]) {
        await send(r, { install_instance_id: iid }, 'iid');
      }
      const wide = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i]));
      const huge = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`key_${i}`, i]));
      const base = baseOf(r);
      await sendRaw(r, withRaw(base, ['device_data'], JSON.stringify(wide)), 'device_data 5k keys');
      await sendRaw(r, withRaw(base, ['device_data'], JSON.stringify(huge)), 'device_data 10k keys');
      await sendRaw(
        r,
        withRaw(base, ['device_data'], `${'{"a":'.repeat(50)}1${'}'.repeat(50)}`),
        'device_data depth 50',
      );
      await sendRaw(r, withRaw(base, ['device_data'], nested(20_000)), 'device_data 20k arrays');
      await sendRaw(r, withRaw(base, ['device_data', 'x'], JSON.stringify(BAD_STRINGS)), 'device_data strings');
      await expectAlive(h().app);
    },
  );

  it('when one install id comes in upper and lower case, then it is one install', async () => {
    const iid = randomUUID();
    const init = route('init');
    expect((await send(init, { install_instance_id: iid.toUpperCase() })).statusCode).toBe(202);
    expect((await send(init, { install_instance_id: iid })).statusCode).toBe(202);
    const rows = (await installRows(h().deps, x.p)).filter((i) => i.install_instance_id === iid);
    expect(rows).toHaveLength(1);
  });
});

describe('POST /api/client/init', () => {
  it('when one install id is sent twice, then 20 times at once, then one install row', async () => {
    const init = route('init');
    const iid = randomUUID();
    await send(init, { install_instance_id: iid });
    await send(init, { install_instance_id: iid });
    const all = await Promise.all(Array.from({ length: 20 }, () => send(init, { install_instance_id: iid })));
    expect(all.every((res) => res.statusCode === 202)).toBe(true);
    expect((await installRows(h().deps, x.p)).filter((i) => i.install_instance_id === iid)).toHaveLength(1);
  });

  it('when link is javascript:, data: or junk, then 202 (the link is ignored)', async () => {
    for (const link of ['javascript:alert(1)', 'data:text/html,x', '\u0000', 'a'.repeat(5000)]) {
      expect((await send(route('init'), { link, install_instance_id: randomUUID() })).statusCode).toBe(202);
    }
    const base = { ...baseOf(route('init')), install_instance_id: randomUUID() };
    expect((await sendRaw(route('init'), withRaw(base, ['link'], '1e309'))).statusCode).toBe(202);
  });
});

describe('POST /api/client/capture-event', () => {
  const ev = () => route('capture-event');

  it('when event_name is empty, too long or not a string, then 400 with its text', async () => {
    for (const event_name of ['', 'n'.repeat(256), 'n'.repeat(10_000), null, 1, [], {}]) {
      const res = await send(ev(), { event_name, event_id: randomUUID() });
      expect(res.json()).toEqual({ msg: MSG.eventNameInvalid, status: 400 });
    }
  });

  it('when event_name is a prototype name, RTL, emoji, NFC or NFD, then 200 stored', async () => {
    for (const event_name of [
      '__proto__',
      'constructor',
      'toString',
      'hasOwnProperty',
      '\u202eevil',
      '👩‍👩‍👧‍👦',
      'Caf\u00e9',
      'Cafe\u0301',
      'a\u0000b',
      '\ud800',
    ]) {
      const res = await send(ev(), { event_name, event_id: randomUUID() });
      expect(res.statusCode, JSON.stringify(event_name)).toBe(200);
    }
  });

  it('when event_data.amount is odd, then only documented statuses', async () => {
    const base = baseOf(ev());
    for (const amount of [
      '"12"',
      '-1',
      '1e309',
      '-1e309',
      '1e20',
      '1e29',
      '-0',
      '9007199254740993',
      '0.1',
      'null',
      '[1]',
      '{"a":1}',
    ]) {
      await sendRaw(
        ev(),
        withRaw({ ...base, event_id: randomUUID() }, ['event_data', 'amount'], amount),
        `amount ${amount}`,
      );
    }
  });
});

describe('POST /api/client/capture-payment', () => {
  const pay = () => route('capture-payment');
  const fresh = (over: Record<string, unknown> = {}) => ({ payment_id: `p-${randomUUID()}`, ...over });

  it.each(['-0.01', '"10"', '1e309', '-1e309', '1e29', '1e28', 'null', 'true', '[]', '"abc"'])(
    'when amount is %s, then 400 with its text',
    async (amount) => {
      const res = await sendRaw(pay(), withRaw({ ...baseOf(pay()), ...fresh() }, ['amount'], amount), amount);
      expect(res.json()).toEqual({ msg: MSG.amountInvalid, status: 400 });
    },
  );

  it.each(['0', '-0', '1e20', '0.123456789012345678', '9007199254740993', '0.1'])(
    'when amount is %s, then 201',
    async (amount) => {
      const res = await sendRaw(pay(), withRaw({ ...baseOf(pay()), ...fresh() }, ['amount'], amount), amount);
      expect(res.statusCode).toBe(201);
    },
  );

  it('when type or status is lowercase, unknown or a prototype name, then 400 with its text', async () => {
    for (const type of ['default', 'REFUND', '__proto__', 'toString', '', 1]) {
      const res = await send(pay(), fresh({ type }));
      expect([400, 201]).toContain(res.statusCode);
      if (type !== '') {
        expect(res.json()).toEqual({ msg: MSG.paymentTypeInvalid, status: 400 });
      }
    }
    for (const status of ['payment_completed', 'DONE', 'constructor']) {
      expect((await send(pay(), fresh({ status }))).json()).toEqual({ msg: MSG.paymentStatusInvalid, status: 400 });
    }
  });

  it('when payment_id is 10k characters, then 400 with its text', async () => {
    expect((await send(pay(), { payment_id: 'p'.repeat(10_000) })).json()).toEqual({
      msg: MSG.paymentIdInvalid,
      status: 400,
    });
  });

  it('when one payment_id comes twice, then 50 times at once, then one row; without an id, two rows', async () => {
    const id = `dup-${randomUUID()}`;
    await send(pay(), { payment_id: id });
    await send(pay(), { payment_id: id });
    const burst = await Promise.all(Array.from({ length: 50 }, () => send(pay(), { payment_id: id })));
    expect(burst.every((res) => res.statusCode === 200)).toBe(true);
    const uid = `no-id-${randomUUID()}`;
    await send(route('trigger'), { user_data: { id: uid } });
    await send(pay(), { payment_id: '', user_id: uid, amount: 3 });
    await send(pay(), { payment_id: undefined, user_id: uid, amount: 3 });
    await flushFacts(h());
    const facts = await paymentFacts(h().deps, x.p);
    expect(facts.filter((p) => p.payment_id === id && p.sign === 1)).toHaveLength(1);
    expect(facts.filter((p) => p.user_id === uid && p.sign === 1)).toHaveLength(2);
  });
});

describe('POST /api/client/remove-captured-payment', () => {
  const rm = () => route('remove-captured-payment');

  it('when neither id is given, then 400; twice or unknown, then 200 both times', async () => {
    const res = await send(rm(), { payment_id: '', user_id: '' });
    expect(res.json()).toEqual({ msg: MSG.paymentOrUserRequired, status: 400 });
    expect((await send(rm(), { payment_id: undefined, user_id: undefined })).statusCode).toBe(400);
    for (const payment_id of ['pay-1', 'pay-1', 'never-captured', '\u0000', 'x'.repeat(10_000)]) {
      await send(rm(), { payment_id });
    }
    expect((await send(rm(), { payment_id: 'never-captured' })).statusCode).toBe(200);
  });
});

describe('POST /api/client/integrations', () => {
  it('when values are not strings or there are 1k keys, then 400', async () => {
    const r = route('integrations');
    for (const integration_info of [{ a: 1 }, { a: null }, { a: { b: 'c' } }, 'x', [], null]) {
      expect((await send(r, { integration_info })).statusCode).toBe(400);
    }
    const many = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`id${i}`, 'v']));
    expect((await send(r, { integration_info: many })).json()).toEqual({
      msg: MSG.integrationInfoTooManyKeys,
      status: 400,
    });
    const odd = withRaw(baseOf(r), ['integration_info'], '{"\\u0000k":"\\u0000v","__proto__":"x"}');
    expect([200, 400]).toContain((await sendRaw(r, odd)).statusCode);
  });
});

describe('POST /api/client/handle-deeplink and client timestamps', () => {
  it('when deeplink_url is 100 KB, 60 KB, javascript: or junk, then only documented statuses', async () => {
    const r = route('handle-deeplink');
    expect((await send(r, { deeplink_url: `https://a.test/${'a'.repeat(100_000)}` })).statusCode).toBe(413);
    for (const deeplink_url of [`https://a.test/${'a'.repeat(60_000)}`, 'javascript:alert(1)', '', '\u0000', 1, null]) {
      await send(r, { deeplink_url });
    }
    for (const meta_install_referrer of ['x', [], { utm_content: '{"source":' }, { a: nested(10) }, null]) {
      await send(r, { meta_install_referrer });
    }
    await sendRaw(r, withRaw(baseOf(r), ['meta_install_referrer'], '1e309'));
  });

  it('when client timestamps are in the far future, before 2000 or junk, then only documented statuses', async () => {
    const times = [
      '9999-12-31T23:59:59Z',
      '1970-01-01T00:00:00Z',
      '1999-12-31',
      'not a date',
      '',
      '2024-02-30T00:00:00Z',
    ];
    for (const t of times) {
      await send(route('trigger'), { customer_created_at: t, user_data: { id: x.userId, user_created_at: t } });
    }
    for (const timestamp of [
      '-1',
      '0',
      '1e309',
      '8640000000000001',
      String(Date.now() + 86_400_000 * 2),
      '"1732222222000"',
    ]) {
      await sendRaw(route('handle-deeplink'), withRaw(baseOf(route('handle-deeplink')), ['timestamp'], timestamp));
    }
    for (const t of ['-1', '1e309', '"x"', 'null']) {
      const base = { ...baseOf(route('capture-event')), event_id: randomUUID() };
      await sendRaw(route('capture-event'), withRaw(base, ['time_since_app_install'], t));
    }
  });
});

describe('every client route: random values in random fields', () => {
  it('when a top-level field holds a random bad value, then only documented statuses', async () => {
    await property(
      fc.record({
        r: fc.constantFrom(...CLIENT_ROUTES),
        key: fc.constantFrom(
          'token',
          'platform',
          'install_instance_id',
          'device_data',
          'user_id',
          'event_name',
          'amount',
          'payment_id',
          'user_data',
          'integration_info',
          'deeplink_url',
          'push_token',
        ),
        literal: badLiteral,
      }),
      async ({ r, key, literal }) => {
        await sendRaw(r, withRaw(baseOf(r), [key], literal), key);
      },
    );
    await expectAlive(h().app);
  });
});
