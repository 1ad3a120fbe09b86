// POST /api/client/capture-event (spec Rules 1-2; real-clients §4.5; catalog §4c): 200
// {msg, status, data: {message}} whatever happened. Events are stored (as `events` facts carrying
// the install's attribution) only for users registered through trigger; an event_id makes the
// event idempotent; event_data.amount is revenue when it is a JSON number from 0 to 1e20; names
// are stored exactly as sent.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { captureEvent } from '../../../src/domain/events/capture-event.ts';
import {
  attribute,
  attributedInstall,
  flushFacts,
  init,
  post,
  type Res,
  useClientHarness,
} from '../../support/client.ts';
import { eventFacts, outboxCount, registeredUser, signUp } from '../../support/commerce.ts';
import { newProject, type TestProject } from '../../support/harness.ts';

const h = useClientHarness();

const answer = (message: string) => ({ msg: message, status: 200, data: { message } });
const STORED = answer('Event captured successfully');
const NOT_STORED = answer('Event not stored: the user is not registered. Call trigger first.');
const DUPLICATE = answer('Event already captured: duplicate event_id ignored.');
const bad = (msg: string) => ({ msg, status: 400 });
const BAD_NAME = bad('event_name must be a non-empty string of at most 255 characters.');
const BAD_EVENT_ID = bad('event_id must be a string or number of at most 128 characters.');

function registered(userId = 'user-1') {
  return registeredUser(h(), userId);
}

function capture(p: TestProject, iid: string, body: Record<string, unknown>): Promise<Res> {
  return post(h(), 'capture-event', { token: p.token, platform: 'ANDROID', install_instance_id: iid, ...body });
}

function captureRaw(json: string): Promise<Res> {
  return post(h(), 'capture-event', json, { headers: { 'content-type': 'application/json; charset=UTF-8' } });
}

describe('200 stored', () => {
  it('when an attributed Android install of a registered user sends an event, then one fact with its campaign', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const { campaign, iid } = await attributedInstall(h(), p);
    await signUp(h(), p, iid, 'u-42');

    // AND-1.1 TrackEventApiRequest: no user_id, RN numbers as doubles, device_data alongside.
    const res = await captureRaw(
      `{"token":"${p.token}","event_name":"add_to_cart","event_data":{"value":49.99,"num_items":2.0,"currency":"USD"},` +
        `"platform":"ANDROID","device_data":{"device_id":"abc","app_version":"1.0"},"install_instance_id":"${iid}"}`,
    );

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(STORED);
    await flushFacts(h());
    expect(await eventFacts(deps, p)).toEqual([
      {
        event_id: expect.stringMatching(/^ev_/),
        install_instance_id: iid,
        user_id: 'u-42',
        event_name: 'add_to_cart',
        platform: 'ANDROID',
        amount: '0',
        has_amount: 0,
        event_data: '{"value":49.99,"num_items":2,"currency":"USD"}',
        campaign_id: campaign.id,
        display_id: campaign.displayId,
        project_tz: 'UTC',
      },
    ]);
  });

  it('when iOS 4.x sends user_id, event_id and "event_data":null, then the fact uses the event_id and {}', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = 'AbCdEfGhIjKlMnOpQrSt';
    await init(h(), p.token, { install_instance_id: iid, platform: 'IOS', device_data: { idfv: 'X' } });
    await attribute(h(), p, iid);
    await signUp(h(), p, iid, 'ios-user');

    const res = await captureRaw(
      `{"event_data":null,"platform":"IOS","install_instance_id":"${iid}","token":"${p.token}",` +
        `"event_name":"level_up","time_since_app_install":12.5,"device_data":{"idfv":"X"},` +
        `"event_id":"evt-1","user_id":"ios-user"}`,
    );

    expect(res.json()).toEqual(STORED);
    await flushFacts(h());
    expect(await eventFacts(deps, p)).toMatchObject([
      { event_id: 'evt-1', user_id: 'ios-user', platform: 'IOS', event_data: '{}', campaign_id: 0, display_id: '' },
    ]);
  });

  it('when the user registered through another install, then the event counts for that install', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const { campaign, iid: firstInstall } = await attributedInstall(h(), p);
    await signUp(h(), p, firstInstall, 'moved-user');
    const secondInstall = randomUUID();
    await init(h(), p.token, { install_instance_id: secondInstall });

    const res = await capture(p, secondInstall, { event_name: 'open_cart', user_id: 'moved-user' });

    expect(res.json()).toEqual(STORED);
    await flushFacts(h());
    expect(await eventFacts(deps, p)).toMatchObject([
      { install_instance_id: firstInstall, user_id: 'moved-user', campaign_id: campaign.id },
    ]);
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', ' Spaced Name ', 'Caf\u00e9', 'Cafe\u0301'])(
    'when the event is named %j, then it is stored exactly as sent',
    async (name) => {
      const { deps } = h();
      const { p, iid } = await registered();

      expect((await capture(p, iid, { event_name: name })).json()).toEqual(STORED);

      await flushFacts(h());
      expect((await eventFacts(deps, p)).map((e) => e.event_name)).toEqual([name]);
    },
  );

  it('when user_id comes with spaces or as a number, then it matches the id trigger stored', async () => {
    const { deps } = h();
    const { p, iid } = await registered('12345');

    expect((await capture(p, iid, { event_name: 'a', user_id: ' 12345 ' })).json()).toEqual(STORED);
    expect((await capture(p, iid, { event_name: 'b', user_id: 12345 })).json()).toEqual(STORED);
    expect((await capture(p, iid, { event_name: 'c', user_id: '' })).json()).toEqual(STORED);

    await flushFacts(h());
    expect((await eventFacts(deps, p)).map((e) => e.user_id)).toEqual(['12345', '12345', '12345']);
  });

  it('when a numeric event_id is sent, then its text is the id and a repeat as a string is a duplicate', async () => {
    const { deps } = h();
    const { p, iid } = await registered();

    expect((await capture(p, iid, { event_name: 'e', event_id: 42 })).json()).toEqual(STORED);
    expect((await capture(p, iid, { event_name: 'e', event_id: '42' })).json()).toEqual(DUPLICATE);

    await flushFacts(h());
    expect((await eventFacts(deps, p)).map((e) => e.event_id)).toEqual(['42']);
  });

  it('when event_id is "" or null, then it counts as absent (no dedupe)', async () => {
    const { deps } = h();
    const { p, iid } = await registered();

    await capture(p, iid, { event_name: 'e', event_id: '' });
    await capture(p, iid, { event_name: 'e', event_id: null });

    expect(await outboxCount(deps, p, 'events')).toBe(2);
  });
});

describe('200 revenue (Rule 2)', () => {
  it.each([
    ['an integer', '12', '12', 1],
    ['an Android double', '499.0', '499', 1],
    ['a Java exponent', '1.25E7', '12500000', 1],
    ['1e20', '1e20', '100000000000000000000', 1],
    ['0.1', '0.1', '0.1', 1],
    ['zero', '0', '0', 1],
    ['more than 9 decimals (rounded half up)', '0.1234567895', '0.12345679', 1],
    ['a numeric string', '"12"', '0', 0],
    ['a negative number', '-1', '0', 0],
    ['1e309 (Infinity)', '1e309', '0', 0],
    ['above 1e20', '1.0000001e20', '0', 0],
    ['null', 'null', '0', 0],
  ])('when event_data.amount is %s, then amount %s… is stored as %s', async (_case, raw, amount, hasAmount) => {
    const { deps } = h();
    const { p, iid } = await registered();

    const res = await captureRaw(
      `{"token":"${p.token}","install_instance_id":"${iid}","event_name":"purchase","event_data":{"amount":${raw}}}`,
    );

    expect(res.json()).toEqual(STORED);
    await flushFacts(h());
    expect(await eventFacts(deps, p)).toMatchObject([{ amount, has_amount: hasAmount }]);
  });

  it('when two events carry 0.1 and 0.2, then ClickHouse sums them to exactly 0.3', async () => {
    const { deps } = h();
    const { p, iid } = await registered();

    await capture(p, iid, { event_name: 'buy', event_data: { amount: 0.1 } });
    await capture(p, iid, { event_name: 'buy', event_data: { amount: 0.2 } });

    await flushFacts(h());
    const rs = await deps.ch.query({
      query: 'SELECT toString(sum(amount)) AS total FROM events WHERE project_id = {p:String} AND has_amount = 1',
      format: 'JSONEachRow',
      query_params: { p: p.project.id },
    });
    expect(await rs.json()).toEqual([{ total: '0.3' }]);
  });
});

describe('200 not stored (Rule 1)', () => {
  it('when the install has no registered user, then nothing is stored and the event_id stays free', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = randomUUID();
    await init(h(), p.token, { install_instance_id: iid });

    const res = await capture(p, iid, { event_name: 'early', event_id: 'e-1' });

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(NOT_STORED);
    expect(await outboxCount(deps, p, 'events')).toBe(0);
    const seen = await deps.sql`SELECT 1 FROM seen_event_ids WHERE project_id = ${p.project.id}`;
    expect(seen.length).toBe(0);

    // After trigger the same event (same event_id) is stored.
    await signUp(h(), p, iid, 'late-user');
    expect((await capture(p, iid, { event_name: 'early', event_id: 'e-1' })).json()).toEqual(STORED);
  });

  it('when the install was never initialised, then nothing is stored', async () => {
    const { deps } = h();
    const p = await newProject(deps);

    const res = await capture(p, randomUUID(), { event_name: 'ghost', user_id: 'nobody' });

    expect(res.json()).toEqual(NOT_STORED);
    expect(await outboxCount(deps, p, 'events')).toBe(0);
  });

  it('when only customer-user-id tied the install (no trigger), then nothing is stored', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = randomUUID();
    await init(h(), p.token, { install_instance_id: iid });
    const tie = await post(h(), 'customer-user-id', { token: p.token, install_instance_id: iid, user_id: 'cu-1' });
    expect(tie.statusCode).toBe(200);

    expect((await capture(p, iid, { event_name: 'x' })).json()).toEqual(NOT_STORED);
    expect((await capture(p, iid, { event_name: 'x', user_id: 'cu-1' })).json()).toEqual(NOT_STORED);
    expect(await outboxCount(deps, p, 'events')).toBe(0);
  });

  it('when user_id names a user trigger never saw, then nothing is stored even on a registered install', async () => {
    const { deps } = h();
    const { p, iid } = await registered('known');

    const res = await capture(p, iid, { event_name: 'x', user_id: 'stranger' });

    expect(res.json()).toEqual(NOT_STORED);
    expect(await outboxCount(deps, p, 'events')).toBe(0);
  });

  it("when the user is registered in another project, then this project's event is not stored", async () => {
    const { deps } = h();
    const other = await registered('shared-id');
    const p = await newProject(deps);
    await init(h(), p.token, { install_instance_id: other.iid });

    const res = await capture(p, other.iid, { event_name: 'x', user_id: 'shared-id' });

    expect(res.json()).toEqual(NOT_STORED);
  });
});

describe('200 duplicate event_id', () => {
  it('when the same event_id is sent twice, then one fact and the second answer says duplicate', async () => {
    const { deps } = h();
    const { p, iid } = await registered();

    const first = await capture(p, iid, { event_name: 'signup_done', event_id: 'dup-1' });
    const second = await capture(p, iid, { event_name: 'signup_done', event_id: 'dup-1' });

    expect(first.json()).toEqual(STORED);
    expect(second.json()).toEqual(DUPLICATE);
    await flushFacts(h());
    expect((await eventFacts(deps, p)).map((e) => e.event_id)).toEqual(['dup-1']);
  });

  it('when the same event_id is sent 20 times at once, then exactly one fact is stored', async () => {
    const { deps } = h();
    const { p, iid } = await registered();

    const answers = await Promise.all(
      Array.from({ length: 20 }, () => capture(p, iid, { event_name: 'burst', event_id: 'burst-1' })),
    );

    const bodies = answers.map((r) => r.json());
    expect(bodies.filter((b) => b.data.message === STORED.msg)).toHaveLength(1);
    expect(bodies.filter((b) => b.data.message === DUPLICATE.msg)).toHaveLength(19);
    await flushFacts(h());
    expect(await eventFacts(deps, p)).toHaveLength(1);
  });

  it('when two projects use the same event_id, then both events are stored', async () => {
    const a = await registered();
    const b = await registered();

    expect((await capture(a.p, a.iid, { event_name: 'e', event_id: 'same' })).json()).toEqual(STORED);
    expect((await capture(b.p, b.iid, { event_name: 'e', event_id: 'same' })).json()).toEqual(STORED);
  });
});

describe('200 stored in batches', () => {
  // Events arriving while others are being stored share one transaction (lib/micro-batch.ts).
  it('when 60 events of two projects arrive at once with the same event_ids, then each project stores each id once', async () => {
    const { deps } = h();
    const a = await registered('batch-a');
    const b = await registered('batch-b');

    const sends = [a, b].flatMap(({ p, iid }) =>
      Array.from({ length: 30 }, (_, i) => capture(p, iid, { event_name: 'batched', event_id: `b-${i % 15}` })),
    );
    const answers = (await Promise.all(sends)).map((r) => r.json().data.message);

    for (const side of [answers.slice(0, 30), answers.slice(30)]) {
      expect(side.filter((m) => m === STORED.msg)).toHaveLength(15);
      expect(side.filter((m) => m === DUPLICATE.msg)).toHaveLength(15);
    }
    await flushFacts(h());
    for (const { p } of [a, b]) {
      const ids = (await eventFacts(deps, p)).map((e) => e.event_id).sort();
      expect(ids).toEqual(Array.from({ length: 15 }, (_, i) => `b-${i}`).sort());
    }
  });

  it('when registered and unregistered senders of two projects arrive at once, then each answer is its own', async () => {
    // Their registration lookups share statements too (resolve-registered-user.ts): one ask's
    // project, install or user must never answer another's.
    const { deps } = h();
    const a = await registered('shared-user');
    const b = await newProject(deps);
    await init(h(), b.token, { install_instance_id: a.iid });
    const loner = randomUUID();
    await init(h(), a.p.token, { install_instance_id: loner });

    const sends = Array.from({ length: 20 }, (_, i) => [
      capture(a.p, a.iid, { event_name: 'mixed', event_id: `a-${i}` }),
      capture(b, a.iid, { event_name: 'mixed', event_id: `b-${i}` }),
      capture(b, a.iid, { event_name: 'mixed', event_id: `bu-${i}`, user_id: 'shared-user' }),
      capture(a.p, loner, { event_name: 'mixed', event_id: `l-${i}` }),
      capture(a.p, loner, { event_name: 'mixed', event_id: `lu-${i}`, user_id: 'shared-user' }),
    ]).flat();
    const answers = (await Promise.all(sends)).map((r) => r.json().data.message);

    const expected = [STORED.msg, NOT_STORED.msg, NOT_STORED.msg, NOT_STORED.msg, STORED.msg];
    expect(answers).toEqual(Array.from({ length: 20 }, () => expected).flat());
    await flushFacts(h());
    const facts = await eventFacts(deps, a.p);
    expect(facts.filter((e) => e.event_id.startsWith('lu-'))).toHaveLength(20);
    // A user_id sent from an install never tied to it counts for the install it registered through.
    expect(new Set(facts.map((e) => e.install_instance_id))).toEqual(new Set([a.iid]));
    expect(facts).toHaveLength(40);
    expect(await eventFacts(deps, b)).toEqual([]);
  });

  it('when one event of a batch is refused by Postgres, then it alone fails and the others are stored', async () => {
    // The parser drops NUL (Postgres text refuses it); calling the domain directly gets an event id
    // with one past it.
    const { deps } = h();
    const { p, iid } = await registered('batch-bad');
    const input = (name: string, eventId: string | null) => ({
      installInstanceId: iid,
      platform: 'ANDROID',
      userId: null,
      eventName: name,
      eventData: {},
      eventId,
    });

    const settled = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        captureEvent(deps, p.project, input(`ok-${i}`, i === 7 ? 'nul \u0000 id' : null)),
      ),
    );

    expect(settled.filter((s) => s.status === 'rejected')).toHaveLength(1);
    expect(settled[7]?.status).toBe('rejected');
    await flushFacts(h());
    const names = (await eventFacts(deps, p)).map((e) => e.event_name).sort();
    expect(names).toEqual(
      Array.from({ length: 20 }, (_, i) => `ok-${i}`)
        .filter((n) => n !== 'ok-7')
        .sort(),
    );
  });
});

describe('400', () => {
  it.each<[string, Record<string, unknown>, { msg: string; status: number }]>([
    ['event_name is missing', {}, BAD_NAME],
    ['event_name is ""', { event_name: '' }, BAD_NAME],
    ['event_name is blank', { event_name: '   ' }, BAD_NAME],
    ['event_name is 256 characters', { event_name: 'x'.repeat(256) }, BAD_NAME],
    ['event_name is a number', { event_name: 7 }, BAD_NAME],
    ['event_data is a string', { event_name: 'e', event_data: '{"a":1}' }, bad('event_data must be an object.')],
    ['event_data is an array', { event_name: 'e', event_data: [1] }, bad('event_data must be an object.')],
    ['event_id is an object', { event_name: 'e', event_id: { id: 1 } }, BAD_EVENT_ID],
    ['event_id is 129 characters', { event_name: 'e', event_id: 'x'.repeat(129) }, BAD_EVENT_ID],
    [
      'user_id is an object',
      { event_name: 'e', user_id: {} },
      bad('user_id must be a string of at most 256 characters.'),
    ],
  ])('when %s, then 400 with its text and nothing stored', async (_case, body, expected) => {
    const { deps } = h();
    const { p, iid } = await registered();

    const res = await capture(p, iid, body);

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(expected);
    expect(await outboxCount(deps, p, 'events')).toBe(0);
  });

  it('when event_name is exactly 255 characters, then it is accepted', async () => {
    const { p, iid } = await registered();
    expect((await capture(p, iid, { event_name: 'x'.repeat(255) })).json()).toEqual(STORED);
  });

  it('when event_name is 255 emoji (510 UTF-16 units), then it is accepted and stored as sent; 256 are refused', async () => {
    // The limit counts characters: names of emoji were refused at half the stated length.
    const { deps } = h();
    const { p, iid } = await registered();
    const name = '🛒'.repeat(255);

    expect((await capture(p, iid, { event_name: name, event_id: 'cart-1' })).json()).toEqual(STORED);
    expect((await capture(p, iid, { event_name: `${name}🛒` })).json()).toEqual(BAD_NAME);
    expect((await capture(p, iid, { event_name: 'e', event_id: '🎉'.repeat(128) })).statusCode).toBe(200);
    expect((await capture(p, iid, { event_name: 'e', event_id: '🎉'.repeat(129) })).json()).toEqual(BAD_EVENT_ID);
    await flushFacts(h());
    expect((await eventFacts(deps, p)).find((e) => e.event_id === 'cart-1')?.event_name).toBe(name);
  });

  it('when install_instance_id is missing, then 400 with its text', async () => {
    const { p } = await registered();
    const res = await post(h(), 'capture-event', { token: p.token, event_name: 'e' });
    expect(res.json()).toEqual(bad('install_instance_id must be a non-empty string of at most 128 characters.'));
  });

  it('when the token is wrong, then 400 with the client token text', async () => {
    const res = await post(h(), 'capture-event', { token: 'pt_nope', install_instance_id: 'x', event_name: 'e' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(bad('Invalid or missing project token.'));
  });

  it('when event_data holds a __proto__ key, then 400 Invalid JSON body.', async () => {
    const { p, iid } = await registered();
    const res = await captureRaw(
      `{"token":"${p.token}","install_instance_id":"${iid}","event_name":"e","event_data":{"__proto__":{"x":1}}}`,
    );
    expect(res.json()).toEqual(bad('Invalid JSON body.'));
  });
});
