// One iOS 4.0.1 app session, signed with the project's iOS key, in the order an app calls the SDK,
// all before the attribution worker decides the install (a real device is that fast): every answer
// must be what iOS parses (JSON object, status = HTTP status, SKAN ints under data, integrations
// status 200/201), and the data must land once, on the clicked campaign (real-clients §1-§5;
// bodies in support/sdk-wire.ts).
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSigningKey } from '../../../src/domain/projects/create-signing-key.ts';
import { setSigningEnforcement } from '../../../src/domain/projects/set-signing-enforcement.ts';
import {
  attribute,
  campaignWithListings,
  clickLink,
  flushFacts,
  IPHONE_UA,
  randomIp,
  useClientHarness,
} from '../../support/client.ts';
import { eventFacts, paymentFacts } from '../../support/commerce.ts';
import { newProject } from '../../support/harness.ts';
import { campaignRow } from '../../support/remarketing.ts';
import { attributedUsers, IOS_HEADERS, iosBodies, iosInstallId, send } from '../../support/sdk-wire.ts';
import { signupFacts } from '../../support/users.ts';

const h = useClientHarness();

const SCHEMA = {
  rules: [
    { fine: 5, coarse: 'low', conditions: [{ type: 'signup' }] },
    { fine: 20, coarse: 'medium', conditions: [{ type: 'revenue', amount: { min: 1 } }] },
  ],
};

/** What iOS processSKANResponse reads: an Int fine value, a lowercase coarse string, a Bool lock. */
function expectSkan(data: Record<string, unknown>, fine: number, coarse: string) {
  expect(Number.isInteger(data.fine_conversion_value)).toBe(true);
  expect(data).toMatchObject({ fine_conversion_value: fine, coarse_conversion_value: coarse, lock_postback: false });
}

async function setup() {
  const { deps } = h();
  const p = await newProject(deps);
  const key = await createSigningKey(deps, p.project.id, { platform: 'IOS' });
  await setSigningEnforcement(deps, p.project.id, { enforce: 'true' });
  const schema = await h().app.inject({
    method: 'PUT',
    url: '/api/v1/skan/schema',
    headers: p.headers,
    payload: SCHEMA,
  });
  expect(schema.statusCode).toBe(201);
  const campaign = await campaignWithListings(deps, p);
  const ip = randomIp();
  await clickLink(h(), campaign, { ip, userAgent: IPHONE_UA, agoMs: 120_000 });
  await flushFacts(h());
  const iid = iosInstallId();
  return { p, key, campaign, ip, iid, b: iosBodies(p, iid) };
}

describe('iOS 4.0.1 signed session, before the attribution worker runs', () => {
  it('when an iOS app runs init → attribution-data → signup → set-user-data → events → payments → refund → push → integrations → customer-user-id, then every answer parses on iOS and the data lands once on the clicked campaign', async () => {
    const { p, key, campaign, ip, iid, b } = await setup();
    const io = { headers: IOS_HEADERS, key: { keyId: key.keyId, secret: key.secret }, ip };
    const user = `ios-${randomUUID()}`;
    const pay1 = `pay-${randomUUID()}`;
    const pay2 = `pay-${randomUUID()}`;

    const init = await send(h(), 'init', b.init, io);
    expect(init.statusCode).toBe(202);
    expect(init.json()).toMatchObject({ status: 'accepted', success: true });
    const pending = await send(h(), 'attribution-data', b.attributionData, io);
    expect(pending.statusCode).toBe(200);
    expect(pending.json()).toMatchObject({ status: 200, data: { campaign_data: null } });
    expect(typeof pending.json().data.attribution_source).toBe('string');

    const signup = await send(h(), 'trigger', b.signup(user), io);
    expect(signup.statusCode).toBe(200);
    expect(signup.json()).toMatchObject({ status: 200, data: { trigger: true } });
    expectSkan(signup.json().data, 5, 'low');

    const sud = await send(h(), 'set-user-data', b.setUserData(user), io);
    expect(sud.statusCode).toBe(200);
    expect(sud.json()).toMatchObject({ status: 200, data: { updated: true } });

    // trackEvent with event_data nil → JSON null, an event_id, and the Keychain user_id (iOS 4.x)
    const ev1 = await send(
      h(),
      'capture-event',
      b.trackEvent('level_up', 'null', `,"event_id":"e-${iid}","user_id":"${user}"`),
      io,
    );
    const ev1Retry = await send(
      h(),
      'capture-event',
      b.trackEvent('level_up', 'null', `,"event_id":"e-${iid}","user_id":"${user}"`),
      io,
    );
    const ev2 = await send(
      h(),
      'capture-event',
      b.trackEvent(
        'add_to_cart',
        String.raw`{"amount":49.99,"currency":"USD","content_ids":["sku-1"],"url":"https:\/\/shop.example\/p\/1"}`,
      ),
      io,
    );
    for (const r of [ev1, ev1Retry, ev2]) {
      expect(r.statusCode).toBe(200);
      expect(r.json().status).toBe(200);
      expectSkan(r.json().data, 5, 'low');
    }

    // older iOS JSONSerialization prints 17 significant digits
    const cp1 = await send(h(), 'capture-payment', b.capturePayment(user, '9.9900000000000002', pay1), io);
    const cp1Retry = await send(h(), 'capture-payment', b.capturePayment(user, '9.9900000000000002', pay1), io);
    const cp2 = await send(h(), 'capture-payment', b.capturePayment(user, '100', pay2), io);
    expect([cp1.statusCode, cp1Retry.statusCode, cp2.statusCode]).toEqual([201, 200, 201]);
    expect(cp1.json().status).toBe(201);
    expectSkan(cp2.json().data, 20, 'medium');

    const rm = await send(h(), 'remove-captured-payment', b.removePayment(user, pay2), io);
    expect(rm.statusCode).toBe(200);
    expect(rm.json()).toMatchObject({ status: 200, data: { removed: 1 } });

    const push = await send(h(), 'update-push-token', b.pushToken, io);
    expect(push.statusCode).toBe(200);
    const integ = await send(h(), 'integrations', b.integrations, io);
    expect(integ.statusCode).toBe(200);
    expect([200, 201]).toContain(integ.json().status);
    const cuid = await send(h(), 'customer-user-id', b.customerUserId(user), io);
    expect(cuid.statusCode).toBe(200);

    // the worker decides now (fingerprint: same IP, iPhone, iOS 17)
    const decision = await attribute(h(), p, iid);
    expect(decision).toMatchObject({ campaignId: campaign.id });
    const decided = await send(h(), 'attribution-data', b.attributionData, io);
    const cd = decided.json().data.campaign_data;
    expect(cd).toMatchObject({ id: campaign.displayId, name: 'Spring', type: 'INORGANIC' });
    expect(typeof cd.installed_at).toBe('string');
    expect(cd.installed_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    await flushFacts(h());
    expect((await signupFacts(h().deps, p)).map((s) => [s.user_id, s.campaign_id])).toEqual([[user, campaign.id]]);
    const events = await eventFacts(h().deps, p);
    expect(events.map((e) => [e.event_name, e.campaign_id, e.user_id]).sort()).toEqual([
      ['add_to_cart', campaign.id, user],
      ['level_up', campaign.id, user],
    ]);
    const payments = await paymentFacts(h().deps, p);
    expect(payments.map((x) => [x.payment_id, x.sign, x.campaign_id])).toEqual([
      [pay1, 1, campaign.id],
      [pay2, 1, campaign.id],
      [pay2, -1, campaign.id],
    ]);

    const row = await campaignRow(h(), p, campaign.id);
    expect(row['sign-ups']).toBe('1');
    expect(row.payment_events).toMatchObject({ DEFAULT: { count: expect.any(String) } });
    expect(row.revenue).toBe('$59.98'); // 9.99 kept, 100 refunded, 49.99 event amount
    const users = await attributedUsers(h(), p, campaign.displayId);
    expect(users.statusCode).toBe(200);
    const [listed] = users.json().data.users;
    expect(listed.user_data).toMatchObject({
      id: user,
      name: 'Jane',
      email: 'jane@example.com',
      phone: '+15550001111',
      mixpanel_distinct_id: 'mp-1',
      device_data: { brand: 'Apple', manufacturer: 'Apple', device_name: 'iPhone', bundle_id: 'com.example.shop' },
    });
    expect(listed.user_data.device_data).toMatchObject({ build_number: '20', connectivity: 'wifi', api_level: 0 });
  });
});
