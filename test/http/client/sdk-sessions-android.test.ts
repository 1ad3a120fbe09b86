// One Android session as AND-1.1 / the RN 2.10.1 bridge put it on the wire (Gson: charset=UTF-8,
// \u003d escapes, nulls omitted, Java doubles; RN: "" for a JS null, every number a double), in app
// order and before the attribution worker decides: answers must carry no SKAN fields (AND-1.1
// DTOs), "" payment ids are "no id" (never deduplicated into one), and the data lands once on the
// campaign the Play referrer names (bodies in support/sdk-wire.ts).
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  attribute,
  campaignWithListings,
  clickLink,
  flushFacts,
  randomIp,
  useClientHarness,
} from '../../support/client.ts';
import { eventFacts, netRevenue, paymentFacts } from '../../support/commerce.ts';
import { newProject } from '../../support/harness.ts';
import { campaignRow } from '../../support/remarketing.ts';
import {
  ANDROID_HEADERS,
  androidBodies,
  androidDeviceData,
  attributedUsers,
  gsonEscape,
  send,
} from '../../support/sdk-wire.ts';
import { appUsers, signupFacts } from '../../support/users.ts';

const h = useClientHarness();

const SKAN_KEYS = ['fine_conversion_value', 'coarse_conversion_value', 'lock_postback'];

async function setup() {
  const { deps } = h();
  const p = await newProject(deps);
  const put = await h().app.inject({
    method: 'PUT',
    url: '/api/v1/skan/schema',
    headers: p.headers,
    payload: { rules: [{ fine: 5, coarse: 'low', conditions: [{ type: 'signup' }] }] },
  });
  expect(put.statusCode).toBe(201);
  const campaign = await campaignWithListings(deps, p);
  const ip = randomIp();
  const { referrer } = await clickLink(h(), campaign, { ip, agoMs: 120_000 });
  await flushFacts(h());
  const iid = randomUUID();
  const dd = androidDeviceData(gsonEscape(referrer), randomUUID());
  return { p, campaign, ip, iid, b: androidBodies(p, iid, dd) };
}

describe('Android (AND-1.1 / RN 2.10.1 bridge) session, before the attribution worker runs', () => {
  it('when an Android app runs init → attribution-data → signup → set-user-data → events → payments with "" ids → refund-all → legacy push → integrations, then answers parse and data lands once on the campaign', async () => {
    const { p, campaign, ip, iid, b } = await setup();
    const io = { headers: ANDROID_HEADERS, ip };
    const user = `and-${randomUUID()}`;

    expect((await send(h(), 'init', b.init, io)).statusCode).toBe(202);
    const pending = await send(h(), 'attribution-data', b.attributionData, io);
    expect(pending.statusCode).toBe(200);

    const signup = await send(h(), 'trigger', b.signup(user), io);
    expect(signup.statusCode).toBe(200);
    expect(signup.json()).toMatchObject({ status: 200, data: { trigger: true } });
    const sud = await send(h(), 'set-user-data', b.setUserData(user), io);
    expect(sud.json()).toMatchObject({ status: 200, data: { updated: true } });

    // RN: numbers as doubles, a JS null as "", a numeric eventId stringified
    const ev = await send(
      h(),
      'capture-event',
      b.trackEvent('level_up', '{"level":2.0,"coupon":""}', ',"event_id":"42"'),
      io,
    );
    const evAmount = await send(
      h(),
      'capture-event',
      b.trackEvent('purchase', '{"amount":1.25E2,"currency":"INR"}'),
      io,
    );
    // two payments without an id (RN: paymentId || ''), type/status "" (RN null), Java doubles
    const pA = await send(h(), 'capture-payment', b.capturePayment(user, '499.0', ''), io);
    const pB = await send(h(), 'capture-payment', b.capturePayment(user, '499.0', ''), io);
    const pC = await send(
      h(),
      'capture-payment',
      b.capturePayment(user, '1.0E1', 'order-1', '"type":"FIRST_PAYMENT","status":"PAYMENT_COMPLETED"'),
      io,
    );
    for (const r of [signup, sud, ev, evAmount, pA, pB, pC]) {
      expect(r.json().status).toBe(r.statusCode);
      for (const k of SKAN_KEYS) {
        expect(r.json().data).not.toHaveProperty(k);
      }
    }
    expect([pA.statusCode, pB.statusCode, pC.statusCode]).toEqual([201, 201, 201]);

    const push = await send(h(), 'updatePushToken', b.legacyPushToken, io);
    expect(push.statusCode).toBe(200);
    const integ = await send(h(), 'integrations', b.integrations, io);
    expect(integ.json()).toMatchObject({ status: 200 });

    const decision = await attribute(h(), p, iid);
    expect(decision).toMatchObject({ method: 'play_referrer', campaignId: campaign.id });
    const decided = await send(h(), 'attribution-data', b.attributionData, io);
    expect(decided.json().data.campaign_data).toMatchObject({ id: campaign.displayId, type: 'INORGANIC' });
    for (const v of Object.values(decided.json().data.campaign_data)) {
      expect(v === null || typeof v === 'string').toBe(true); // Android CampaignData is all String
    }

    await flushFacts(h());
    expect((await signupFacts(h().deps, p)).map((s) => s.campaign_id)).toEqual([campaign.id]);
    expect((await eventFacts(h().deps, p)).map((e) => [e.event_name, e.campaign_id]).sort()).toEqual([
      ['level_up', campaign.id],
      ['purchase', campaign.id],
    ]);
    expect((await paymentFacts(h().deps, p)).map((x) => [x.payment_id, x.type, x.status, x.amount])).toEqual([
      ['', 'DEFAULT', 'PAYMENT_COMPLETED', '499'],
      ['', 'DEFAULT', 'PAYMENT_COMPLETED', '499'],
      ['order-1', 'FIRST_PAYMENT', 'PAYMENT_COMPLETED', '10'],
    ]);
    const [u] = await appUsers(h().deps, p);
    expect(u).toMatchObject({ user_id: user, name: 'Ravi', email: null, is_first_time_user: true });
    const row = await campaignRow(h(), p, campaign.id);
    expect(row['sign-ups']).toBe('1');
    expect(row.payment_events).toMatchObject({ DEFAULT: { count: '2' }, FIRST_PAYMENT: { count: '1' } });

    // AND-1.1 refund with payment_id "" and the user: every payment of the user is removed
    const rm = await send(h(), 'remove-captured-payment', b.removePayment(user, ''), io);
    expect(rm.json()).toMatchObject({ status: 200, data: { removed: 3 } });
    await flushFacts(h());
    expect(await netRevenue(h().deps, p, user)).toBe('0');
    const users = await attributedUsers(h(), p, campaign.displayId);
    const listed = users.json().data.users;
    expect(listed.map((x: { user_data: { id: string } }) => x.user_data.id)).toEqual([user]);
    expect(listed[0].user_data.device_data).toMatchObject({
      brand: 'samsung',
      device_name: 'samsung SM-S911B',
      device_id: '9774d56d682e549c',
      build_number: '20',
      application_name: 'Shop',
      connectivity: 'Wi-Fi',
      base_os: '',
      api_level: 0,
    });
  });
});
