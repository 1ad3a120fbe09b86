// GET /api/v1/get-attribution-result (spec: device_identifier = GAID or IDFA, or user_id; when both
// match different installs the user_id's wins; 204 with an empty body when nothing is attributed;
// 400 `Either device_identifier or user_id is required.`; 401 `Unauthorized access.`). The decision
// record comes along as an additive `match` object, from the outbox until the fact reaches ClickHouse.
// installs.user_id is set in SQL here: trigger (which sets it) is not built yet.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { attribute, attributedInstall, flushFacts, init, installRows } from '../../support/client.ts';
import { newProject, type TestProject, useHarness } from '../../support/harness.ts';
import { trigger } from '../../support/users.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

const FOUND = 'Attribution result fetched successfully';
const REQUIRED = { msg: 'Either device_identifier or user_id is required.', status: 400 };
const UNAUTHORIZED = { msg: 'Unauthorized access.', status: 401 };
const WINDOWS = {
  click_lookback_ms: 604_800_000,
  fingerprint_window_ms: 86_400_000,
  reattribution_window_ms: 7_776_000_000,
};

function lookup(p: Pick<TestProject, 'headers'>, query: string) {
  return h().app.inject({ method: 'GET', url: `/api/v1/get-attribution-result?${query}`, headers: p.headers });
}

async function setUserId(p: TestProject, iid: string, userId: string): Promise<void> {
  await h().deps.sql`UPDATE installs SET user_id = ${userId}
    WHERE project_id = ${p.project.id} AND install_instance_id = ${iid}`;
}

async function organicInstall(p: TestProject, deviceData: Record<string, unknown> = {}, platform = 'ANDROID') {
  const iid = randomUUID();
  await init(h(), p.token, { install_instance_id: iid, platform, device_data: deviceData });
  await attribute(h(), p, iid);
  return iid;
}

describe('200', () => {
  it('when the GAID of an attributed install is given, then the full result with its decision record', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const { campaign, gaid, clickId } = await attributedInstall(h(), p);
    const [row] = await installRows(deps, p);
    const expected = {
      msg: FOUND,
      status: 200,
      data: {
        campaign_name: 'Spring',
        display_id: campaign.displayId,
        deeplink: 'myapp://promo/spring',
        domain_name: null,
        ad_set_id: 'as1',
        ad_set_name: 'Set 1',
        ad_creative_id: 'cr1',
        ad_creative_name: 'Creative 1',
        keyword_id: null,
        keyword_name: null,
        ad_network: 'META',
        attribution_type: 'INORGANIC',
        match: {
          decision_id: row?.decision_id,
          method: 'play_referrer',
          reinstall: false,
          suspicious: false,
          click_id: clickId,
          touch_type: 'click',
          ctit_ms: expect.any(Number),
          confidence: 1,
          suspicious_reason: '',
          candidates: [
            {
              method: 'play_referrer',
              click_id: clickId,
              campaign_id: campaign.id,
              outcome: 'won',
              reason: 'last eligible click',
            },
          ],
          windows: WINDOWS,
        },
      },
    };

    const fromOutbox = await lookup(p, `device_identifier=${gaid}`);
    await flushFacts(h());
    const fromClickHouse = await lookup(p, `device_identifier=${gaid}`);

    expect(fromOutbox.statusCode).toBe(200);
    expect(fromOutbox.json()).toEqual(expected);
    expect(fromClickHouse.json()).toEqual(expected);
    expect(fromClickHouse.json().data.match.ctit_ms).toBeGreaterThanOrEqual(60_000);
  });

  it('when the device identifier arrives upper-cased, then it still finds the install', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const { campaign, gaid } = await attributedInstall(h(), p);

    const res = await lookup(p, `device_identifier=${gaid.toUpperCase()}`);

    expect(res.statusCode).toBe(200);
    expect(res.json().data.display_id).toBe(campaign.displayId);
  });

  it('when the IDFA of an organic iOS install is given, then 200 ORGANIC with null campaign fields', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const idfa = randomUUID().toUpperCase();
    await organicInstall(p, { idfa, device: 'iPhone', system_version: '17.4' }, 'IOS');

    const res = await lookup(p, `device_identifier=${idfa}`);

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      msg: FOUND,
      status: 200,
      data: {
        campaign_name: null,
        display_id: null,
        deeplink: null,
        domain_name: null,
        ad_set_id: null,
        ad_set_name: null,
        ad_creative_id: null,
        ad_creative_name: null,
        keyword_id: null,
        keyword_name: null,
        ad_network: null,
        attribution_type: 'ORGANIC',
        match: expect.objectContaining({ method: 'organic', reinstall: false, suspicious: false, click_id: null }),
      },
    });
  });

  it('when the campaign that won the install was deleted, then ORGANIC with every campaign and ad field null, and the decision record kept', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const { campaign, gaid, clickId } = await attributedInstall(h(), p);
    const del = await h().app.inject({
      method: 'DELETE',
      url: `/api/v1/campaigns/${campaign.displayId}`,
      headers: p.headers,
    });

    const res = await lookup(p, `device_identifier=${gaid}`);

    expect(del.statusCode).toBe(204);
    expect(res.json().data).toEqual({
      campaign_name: null,
      display_id: null,
      deeplink: null,
      domain_name: null,
      ad_set_id: null,
      ad_set_name: null,
      ad_creative_id: null,
      ad_creative_name: null,
      keyword_id: null,
      keyword_name: null,
      ad_network: null,
      attribution_type: 'ORGANIC',
      match: expect.objectContaining({ method: 'play_referrer', click_id: clickId }),
    });
  });

  it('when user_id and device_identifier match different installs, then the user_id install wins', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const { gaid } = await attributedInstall(h(), p);
    const userInstall = await organicInstall(p);
    await setUserId(p, userInstall, 'user-42');

    const both = await lookup(p, `device_identifier=${gaid}&user_id=user-42`);
    const userOnly = await lookup(p, 'user_id=user-42');

    expect(both.statusCode).toBe(200);
    expect(both.json().data).toMatchObject({ attribution_type: 'ORGANIC', display_id: null });
    expect(userOnly.json()).toEqual(both.json());
  });

  it('when user_id matches an attributed install, then its campaign is returned', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const { campaign, iid } = await attributedInstall(h(), p);
    await setUserId(p, iid, 'user-7');

    const res = await lookup(p, 'user_id=user-7');

    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ display_id: campaign.displayId, attribution_type: 'INORGANIC' });
  });

  it('when the server key comes in the linkrunner-key header (as the docs show), then it is accepted', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const { gaid } = await attributedInstall(h(), p);

    const res = await lookup({ headers: { 'linkrunner-key': p.serverKey } as never }, `device_identifier=${gaid}`);

    expect(res.statusCode).toBe(200);
  });
});

describe('user_id: the install the user registered through', () => {
  const ids = (res: { json: () => { data: { users: { user_data: { id: string } }[] } } }) =>
    res
      .json()
      .data.users.map((u) => u.user_data.id)
      .sort();
  const attributedUsers = (p: TestProject, displayId: string) =>
    h().app.inject({ method: 'GET', url: `/api/v1/attributed-users?display_id=${displayId}`, headers: p.headers });

  it('when another user logged in on the same device after it, then the first user is still found with its campaign', async () => {
    // By the newest install tied to the user, this answered 204 while attributed-users listed it.
    const p = await newProject(h().deps);
    const { campaign, iid } = await attributedInstall(h(), p);
    expect((await trigger(h(), p.token, iid, 'user-a')).json().data.trigger).toBe(true);
    expect((await trigger(h(), p.token, iid, 'user-b')).json().data.trigger).toBe(true);
    expect(ids(await attributedUsers(p, campaign.displayId))).toEqual(['user-a', 'user-b']);

    const res = await lookup(p, 'user_id=user-a');

    expect(res.statusCode).toBe(200);
    expect(res.json().data.display_id).toBe(campaign.displayId);
  });

  it('when the user later logged in on a second, organic device, then the campaign that brought it is answered', async () => {
    const p = await newProject(h().deps);
    const { campaign, iid } = await attributedInstall(h(), p);
    await trigger(h(), p.token, iid, 'user-2dev');
    await trigger(h(), p.token, await organicInstall(p), 'user-2dev');
    expect(ids(await attributedUsers(p, campaign.displayId))).toEqual(['user-2dev']);

    const res = await lookup(p, 'user_id=user-2dev');

    expect(res.json().data).toMatchObject({ display_id: campaign.displayId, attribution_type: 'INORGANIC' });
  });
});

describe('device ids a later init brings', () => {
  // Kept from the first init only, the install was never found by them (204).
  it('when iOS sends idfa only on a later init (ATT granted after the first launch), then the install is found by it', async () => {
    const p = await newProject(h().deps);
    const iid = 'AbCdEfGhIjKlMnOpQr01';
    const base = { device: 'iPhone', system_version: '17.4', brand: 'Apple', idfv: randomUUID().toUpperCase() };
    expect(
      (await init(h(), p.token, { install_instance_id: iid, platform: 'IOS', device_data: base })).statusCode,
    ).toBe(202);
    await attribute(h(), p, iid);
    const idfa = randomUUID().toUpperCase();
    await init(h(), p.token, { install_instance_id: iid, platform: 'IOS', device_data: { ...base, idfa } });

    const res = await lookup(p, `device_identifier=${idfa}`);

    expect(res.statusCode).toBe(200);
    expect((await installRows(h().deps, p))[0]).toMatchObject({ idfa: idfa.toLowerCase() });
  });

  it('when an Android gaid comes on a second init while pending, then it is kept, and a third init cannot change it', async () => {
    const p = await newProject(h().deps);
    const iid = randomUUID();
    const gaid = randomUUID();
    await init(h(), p.token, { install_instance_id: iid, device_data: { gaid: '' } });
    await init(h(), p.token, { install_instance_id: iid, device_data: { gaid } });
    await init(h(), p.token, { install_instance_id: iid, device_data: { gaid: randomUUID() } });
    await attribute(h(), p, iid);

    expect((await lookup(p, `device_identifier=${gaid}`)).statusCode).toBe(200);
  });
});

describe('204', () => {
  it.each([
    ['an unknown device identifier', () => `device_identifier=${randomUUID()}`],
    ['an unknown user id', () => 'user_id=nobody'],
  ])('when given %s, then 204 with an empty body', async (_case, query) => {
    const { deps } = h();
    const p = await newProject(deps);

    const res = await lookup(p, query());

    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
  });

  it('when the install is still pending, then 204 with an empty body', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const gaid = randomUUID();
    await init(h(), p.token, { device_data: { gaid } });

    const res = await lookup(p, `device_identifier=${gaid}`);

    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
  });

  it("when project B's key asks for A's device or user, then 204 (A's installs are invisible to B)", async () => {
    const { deps } = h();
    const a = await newProject(deps);
    const b = await newProject(deps);
    const { gaid, iid } = await attributedInstall(h(), a);
    await setUserId(a, iid, 'user-a');

    const byDevice = await lookup(b, `device_identifier=${gaid}`);
    const byUser = await lookup(b, 'user_id=user-a');

    expect([byDevice.statusCode, byUser.statusCode]).toEqual([204, 204]);
    expect(byDevice.body + byUser.body).toBe('');
  });
});

describe('400', () => {
  it.each([
    ['neither parameter', ''],
    ['both empty', 'device_identifier=&user_id='],
    ['blank values', 'device_identifier=%20%20&user_id=%20'],
    ['a NUL user id', 'user_id=%00'],
    ['other parameters only', 'gaid=abc&idfa=def'],
  ])('when the query has %s, then 400 with the spec text', async (_case, query) => {
    const { deps } = h();
    const p = await newProject(deps);

    const res = await lookup(p, query);

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(REQUIRED);
  });
});

describe('401', () => {
  it.each([
    ['no key', {}],
    ['an unknown key', { 'service-key': 'sk_unknown' }],
    ['an empty key', { 'service-key': '' }],
  ])('when the request has %s, then 401 Unauthorized access.', async (_case, headers) => {
    const res = await lookup({ headers: headers as never }, 'user_id=u1');

    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual(UNAUTHORIZED);
  });

  it('when the public project token is sent as the service key, then 401 (the token never unlocks /api/v1)', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const { gaid } = await attributedInstall(h(), p);

    const res = await lookup({ headers: { 'service-key': p.token } as never }, `device_identifier=${gaid}`);

    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual(UNAUTHORIZED);
  });
});
