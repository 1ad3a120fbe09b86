// GET /api/v1/attributed-users (spec: "Attributed user", "GET /api/v1/attributed-users"; catalog §4c
// and D4). An attributed user is a user whose registering install (first trigger) is attributed to
// the campaign; the window filters on the registration time, read in `timezone` (gap → forward,
// repeated hour → earlier), both ends inclusive; a start after the end gives no users (200).
// device_data always has the spec's keys ("" / 0 for keys SDKs never send); extra user fields
// come back as sent. Newest first. meta_ad_id, publisher_platform and platform_position are Meta's
// ("" / null for an install of another network). Checks: display_id (422), timezone, timestamps
// (400), page/limit (422).
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deleteCampaign } from '../../../src/domain/campaigns/delete-campaign.ts';
import { editCampaign } from '../../../src/domain/campaigns/edit-campaign.ts';
import {
  attribute,
  attributedInstall,
  campaignWithListings,
  clickLink,
  flushFacts,
  init,
  randomIp,
  useClientHarness,
} from '../../support/client.ts';
import { newProject, type TestProject } from '../../support/harness.ts';
import { META_PLAINTEXT } from '../../support/meta-referrer.ts';
import { androidInit, metaProject } from '../../support/network-claims.ts';
import { appUsers, at, trigger } from '../../support/users.ts';

// SECRETS_KEY: Meta's referrer key is stored sealed (the Meta install tests set one).
const h = useClientHarness({ SECRETS_KEY: randomBytes(32).toString('hex') });

const AUTH_FAILED = { msg: 'Authentication failed.', status: 401 };
const BAD_ZONE = { msg: 'Invalid timezone format.', status: 400 };
const BAD_TS = { msg: 'Invalid timestamp format.', status: 400 };
const MISSING = { msg: 'Required parameter missing.', status: 422 };
const NOT_FOUND = { msg: 'Resource not found.', status: 404 };

const EMPTY_DEVICE = {
  brand: '',
  base_os: '',
  version: '',
  build_id: '',
  bundle_id: '',
  device_id: '',
  android_id: '',
  device_name: '',
  device_type: '',
  build_number: '',
  connectivity: '',
  manufacturer: '',
  application_name: '',
  api_level: 0,
};

function list(p: TestProject, query: Record<string, string> | string, headers: Record<string, string> = p.headers) {
  const qs = typeof query === 'string' ? query : new URLSearchParams(query).toString();
  return h().app.inject({ method: 'GET', url: `/api/v1/attributed-users?${qs}`, headers });
}

type InstallSeed = { network?: string; platform?: string; campaignId: number | null; status?: string };

/** A decided installs row (attribution itself is tested elsewhere); returns its install id. */
async function decidedInstall(p: TestProject, s: InstallSeed): Promise<string> {
  const iid = randomUUID();
  await h().deps.sql`
    INSERT INTO installs (project_id, install_instance_id, platform, campaign_id, attribution_status, network,
      ad_set_id, ad_set_name, creative_id, creative_name)
    VALUES (${p.project.id}, ${iid}, ${s.platform ?? 'ANDROID'}, ${s.campaignId}, ${s.status ?? 'decided'},
      ${s.network ?? null}, 'as9', 'Set 9', 'cr9', 'Creative 9')`;
  return iid;
}

/** A user registered through trigger at `ms` on a fresh install attributed to `campaignId`. */
async function userAt(p: TestProject, campaignId: number | null, userId: string, ms: number, extra = {}) {
  const iid = await decidedInstall(p, { campaignId });
  const res = await at(h(), ms, () => trigger(h(), p.token, iid, userId, extra));
  expect(res.statusCode).toBe(200);
  return iid;
}

const ids = (res: { json: () => { data: { users: { user_data: { id: string } }[] } } }) =>
  res.json().data.users.map((u) => u.user_data.id);

describe('200', () => {
  it('when a user signed up on an attributed install, then every spec field comes back', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const { campaign, iid } = await attributedInstall(h(), p);
    await trigger(h(), p.token, iid, 'u-1', {
      user_data: {
        id: 'u-1',
        name: 'Asha',
        email: 'asha@example.com',
        phone: '+919800000000',
        mixpanel_distinct_id: 'mp1',
        plan: { tier: 'pro', seats: 3 },
        is_first_time_user: true,
      },
      data: {
        device_data: {
          brand: 'samsung',
          device_name: 'samsung SM-S911B',
          manufacturer: 'samsung',
          build_number: '20',
          bundle_id: 'com.example.shop',
          version: '2.0',
          device_id: '9774D56D682E549C',
          connectivity: 'Wi-Fi',
          application_name: 'Shop',
          gaid: '38400000-8cf0-11bd-b23e-10b96e40000d',
          device_ip: '192.168.1.23',
        },
      },
    });
    const [user] = await appUsers(deps, p);
    const [install] = await deps.sql<{ created_at: Date; store_click_at: Date }[]>`
      SELECT created_at, store_click_at FROM installs WHERE project_id = ${p.project.id} AND install_instance_id = ${iid}`;

    const res = await list(p, { display_id: campaign.displayId });

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      msg: 'Successfully retrieved 1 attributed users. Showing page 1 of 1.',
      status: 200,
      data: {
        total_users: 1,
        users: [
          {
            attributed_at: user?.attributed_at.toISOString(),
            ad_channel: 'META',
            campaign_display_id: campaign.displayId,
            campaign_name: 'Spring',
            link: `https://attr.test/?c=${campaign.displayId}`,
            installed_at: install?.created_at.toISOString(),
            store_click_at: install?.store_click_at.toISOString(),
            meta_ad_id: 'cr1',
            ad_creative_id: 'cr1',
            ad_creative_name: 'Creative 1',
            ad_set_id: 'as1',
            ad_set_name: 'Set 1',
            publisher_platform: null,
            platform_position: null,
            user_data: {
              id: 'u-1',
              name: 'Asha',
              email: 'asha@example.com',
              phone: '+919800000000',
              device_data: {
                ...EMPTY_DEVICE,
                brand: 'samsung',
                version: '2.0',
                bundle_id: 'com.example.shop',
                device_id: '9774D56D682E549C',
                device_name: 'samsung SM-S911B',
                build_number: '20',
                connectivity: 'Wi-Fi',
                manufacturer: 'samsung',
                application_name: 'Shop',
              },
              mixpanel_distinct_id: 'mp1',
              plan: { tier: 'pro', seats: 3 },
              is_first_time_user: true,
            },
          },
        ],
        pagination: { total: 1, pages: 1, page: 1, limit: 50 },
      },
    });
  });

  it("when Meta's install referrer decided the install, then meta_ad_id, publisher_platform and platform_position come from it", async () => {
    const { p, meta, ref } = await metaProject(h());
    const iid = await androidInit(h(), p, { meta_install_ref: ref() });
    expect(await attribute(h(), p, iid)).toMatchObject({ method: 'meta_referrer', campaignId: meta.id });
    const reg = await trigger(h(), p.token, iid, 'meta-user');
    expect(reg.statusCode, reg.body).toBe(200);

    const res = await list(p, { display_id: meta.displayId });

    // Was: publisher_platform and platform_position were always null.
    expect(res.json().data.users[0]).toMatchObject({
      ad_channel: 'META',
      meta_ad_id: META_PLAINTEXT.ad_id,
      ad_creative_id: META_PLAINTEXT.ad_id,
      ad_set_id: META_PLAINTEXT.adgroup_id,
      publisher_platform: META_PLAINTEXT.publisher_platform,
      platform_position: META_PLAINTEXT.platform_position,
    });
  });

  it('when a Google click decided the install, then meta_ad_id is "" (not Google\'s ad id) and the Meta placement keys are null', async () => {
    const p = await newProject(h().deps);
    const google = await campaignWithListings(h().deps, p, { name: 'Google', adNetwork: 'GOOGLE' });
    const gaid = randomUUID();
    await clickLink(h(), google, { ip: randomIp(), query: `gaid=${gaid}&gclid=Cj0-abc&ad_id=g-ad-77&adset_id=g-ag-5` });
    await flushFacts(h());
    const iid = await androidInit(h(), p, { gaid });
    expect(await attribute(h(), p, iid)).toMatchObject({ method: 'ad_id', campaignId: google.id });
    const reg = await trigger(h(), p.token, iid, 'google-user');
    expect(reg.statusCode, reg.body).toBe(200);

    const res = await list(p, { display_id: google.displayId });

    // spec "Attributed user": meta_ad_id is a string, so "" for an install of another network.
    expect(res.json().data.users[0]).toMatchObject({
      ad_channel: 'GOOGLE',
      meta_ad_id: '',
      ad_creative_id: 'g-ad-77',
      ad_set_id: 'g-ag-5',
      publisher_platform: null,
      platform_position: null,
    });
  });

  it('when the user sent no device_data, then every device_data key has its default', async () => {
    const p = await newProject(h().deps);
    const c = await campaignWithListings(h().deps, p);
    await userAt(p, c.id, 'bare', Date.now());

    const res = await list(p, { display_id: c.displayId });

    expect(res.json().data.users[0]).toMatchObject({
      ad_channel: null,
      store_click_at: null,
      user_data: { id: 'bare', name: null, email: null, phone: null, device_data: EMPTY_DEVICE },
    });
  });

  it('when device_data holds odd types, then strings are stringified, api_level is a number and reserved extras never override', async () => {
    const p = await newProject(h().deps);
    const c = await campaignWithListings(h().deps, p);
    await userAt(p, c.id, 'odd', Date.now(), {
      user_data: { id: 'odd', device_data: { brand: 'x' }, custom: 'kept' },
      data: { device_data: { build_number: 20, api_level: '33', brand: { a: 1 }, device_type: null } },
    });

    const res = await list(p, { display_id: c.displayId });

    expect(res.json().data.users[0].user_data).toEqual({
      id: 'odd',
      name: null,
      email: null,
      phone: null,
      device_data: { ...EMPTY_DEVICE, build_number: '20', api_level: 33 },
      custom: 'kept',
    });
  });

  it('when users registered organically, on another campaign or while pending, then only the campaign users are listed', async () => {
    const p = await newProject(h().deps);
    const c = await campaignWithListings(h().deps, p);
    const other = await campaignWithListings(h().deps, p, { name: 'Other' });
    const now = Date.now();
    await userAt(p, c.id, 'mine', now);
    await userAt(p, null, 'organic', now);
    await userAt(p, other.id, 'theirs', now);
    const pending = await decidedInstall(p, { campaignId: null, status: 'pending' });
    await trigger(h(), p.token, pending, 'pending');
    // Registered organically, then logged in on an install of the campaign: not the campaign's user.
    const later = await decidedInstall(p, { campaignId: c.id });
    await trigger(h(), p.token, later, 'organic');

    const res = await list(p, { display_id: c.displayId });

    expect(ids(res)).toEqual(['mine']);
    expect(res.json().data.total_users).toBe(1);
  });

  it('when the install network is GOOGLE or TIKTOK or unknown, then ad_channel follows it; else the campaign flags', async () => {
    const p = await newProject(h().deps);
    const c = await campaignWithListings(h().deps, p);
    const now = Date.now();
    for (const [network, user] of [
      ['GOOGLE', 'g'],
      ['TIKTOK', 't'],
      ['APPLE_SEARCH_ADS', 'a'],
    ] as const) {
      const iid = await decidedInstall(p, { campaignId: c.id, network });
      await at(h(), now + user.charCodeAt(0), () => trigger(h(), p.token, iid, user));
    }

    const res = await list(p, { display_id: c.displayId });

    expect(
      res
        .json()
        .data.users.map((u: { user_data: { id: string }; ad_channel: string }) => [u.user_data.id, u.ad_channel]),
    ).toEqual([
      ['t', 'TIKTOK'],
      ['g', 'GOOGLE'],
      ['a', null],
    ]);
  });

  it('when a window is given in a zone, then its wall times are read there and both ends are inclusive', async () => {
    const p = await newProject(h().deps);
    const c = await campaignWithListings(h().deps, p);
    // Asia/Kolkata is UTC+5:30: 2024-06-01T10:00:00.000 local = 04:30:00.000Z.
    await userAt(p, c.id, 'before', Date.parse('2024-06-01T04:29:59.999Z'));
    await userAt(p, c.id, 'start', Date.parse('2024-06-01T04:30:00.000Z'));
    await userAt(p, c.id, 'end', Date.parse('2024-06-01T06:30:00.000Z'));
    await userAt(p, c.id, 'after', Date.parse('2024-06-01T06:30:00.001Z'));

    const res = await list(p, {
      display_id: c.displayId,
      start_timestamp: '2024-06-01T10:00:00.000',
      end_timestamp: '2024-06-01T12:00:00.000',
      timezone: 'Asia/Kolkata',
    });

    expect(res.statusCode).toBe(200);
    expect(ids(res)).toEqual(['end', 'start']);
  });

  it('when only one end is given, or none, then the other side is open', async () => {
    const p = await newProject(h().deps);
    const c = await campaignWithListings(h().deps, p);
    await userAt(p, c.id, 'old', Date.parse('2020-01-01T00:00:00.000Z'));
    await userAt(p, c.id, 'new', Date.parse('2024-01-01T00:00:00.000Z'));

    const from = await list(p, { display_id: c.displayId, start_timestamp: '2023-01-01T00:00:00.000' });
    const to = await list(p, { display_id: c.displayId, end_timestamp: '2023-01-01T00:00:00.000' });
    const blank = await list(p, `display_id=${c.displayId}&start_timestamp=&end_timestamp=&timezone=`);

    expect(ids(from)).toEqual(['new']);
    expect(ids(to)).toEqual(['old']);
    expect(ids(blank)).toEqual(['new', 'old']);
  });

  it('when the start falls in a DST gap, then it moves forward by the gap (02:30 New York → 03:30 EDT)', async () => {
    const p = await newProject(h().deps);
    const c = await campaignWithListings(h().deps, p);
    await userAt(p, c.id, 'early', Date.parse('2024-03-10T07:29:59.999Z'));
    await userAt(p, c.id, 'on-time', Date.parse('2024-03-10T07:30:00.000Z'));

    const res = await list(p, {
      display_id: c.displayId,
      start_timestamp: '2024-03-10T02:30:00.000',
      timezone: 'America/New_York',
    });

    expect(ids(res)).toEqual(['on-time']);
  });

  it('when the end falls in a repeated hour, then the earlier instant is used (01:30 New York → EDT)', async () => {
    const p = await newProject(h().deps);
    const c = await campaignWithListings(h().deps, p);
    await userAt(p, c.id, 'edt', Date.parse('2024-11-03T05:30:00.000Z'));
    await userAt(p, c.id, 'est', Date.parse('2024-11-03T06:30:00.000Z'));

    const res = await list(p, {
      display_id: c.displayId,
      end_timestamp: '2024-11-03T01:30:00.000',
      timezone: 'America/New_York',
    });

    expect(ids(res)).toEqual(['edt']);
  });

  it('when the start is after the end, then 200 with no users', async () => {
    const p = await newProject(h().deps);
    const c = await campaignWithListings(h().deps, p);
    await userAt(p, c.id, 'u', Date.parse('2024-06-01T00:00:00.000Z'));

    const res = await list(p, {
      display_id: c.displayId,
      start_timestamp: '2024-06-02T00:00:00.000',
      end_timestamp: '2024-06-01T00:00:00.000',
    });

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      msg: 'Successfully retrieved 0 attributed users. Showing page 1 of 0.',
      status: 200,
      data: { total_users: 0, users: [], pagination: { total: 0, pages: 0, page: 1, limit: 50 } },
    });
  });

  it('when pages are asked for, then newest first, the limit holds and a page past the end keeps the total', async () => {
    const p = await newProject(h().deps);
    const c = await campaignWithListings(h().deps, p);
    const base = Date.parse('2024-06-01T00:00:00.000Z');
    for (const [i, u] of ['a', 'b', 'c'].entries()) {
      await userAt(p, c.id, u, base + i * 1000);
    }

    const first = await list(p, { display_id: c.displayId, limit: '2' });
    const second = await list(p, { display_id: c.displayId, limit: '2', page: '2' });
    const past = await list(p, { display_id: c.displayId, limit: '2', page: '5' });
    const max = await list(p, { display_id: c.displayId, limit: '1000' });

    expect(ids(first)).toEqual(['c', 'b']);
    expect(first.json().data.pagination).toEqual({ total: 3, pages: 2, page: 1, limit: 2 });
    expect(ids(second)).toEqual(['a']);
    expect(second.json().msg).toBe('Successfully retrieved 3 attributed users. Showing page 2 of 2.');
    expect(past.json().data).toEqual({
      total_users: 3,
      users: [],
      pagination: { total: 3, pages: 2, page: 5, limit: 2 },
    });
    expect(ids(max)).toEqual(['c', 'b', 'a']);
  });

  it('when the page is any positive integer past the end, however large, then 200 with no users and the total', async () => {
    const p = await newProject(h().deps);
    const c = await campaignWithListings(h().deps, p);
    await userAt(p, c.id, 'a', Date.parse('2024-06-01T00:00:00.000Z'));

    const million = await list(p, { display_id: c.displayId, page: '1000001' });
    const huge = await list(p, { display_id: c.displayId, limit: '1000', page: '99999999999999999999' });

    expect(million.statusCode).toBe(200);
    expect(million.json()).toEqual({
      msg: 'Successfully retrieved 1 attributed users. Showing page 1000001 of 1.',
      status: 200,
      data: { total_users: 1, users: [], pagination: { total: 1, pages: 1, page: 1_000_001, limit: 50 } },
    });
    expect(huge.statusCode).toBe(200);
    expect(huge.json().data).toEqual({
      total_users: 1,
      users: [],
      pagination: { total: 1, pages: 1, page: 1e20, limit: 1000 },
    });
  });

  it('when the campaign was renamed, then campaign_name is the current name', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const c = await campaignWithListings(deps, p);
    await userAt(p, c.id, 'u', Date.now());
    await editCampaign(deps, p.project, { displayId: c.displayId, name: 'Summer' });

    const res = await list(p, { display_id: c.displayId });

    expect(res.json().data.users[0].campaign_name).toBe('Summer');
  });
});

describe('400', () => {
  it.each(['Mars/Base', 'UTC+25', '../../etc/passwd', '+05:30', 'Not a zone', 'A'.repeat(65)])(
    'when timezone is %s, then 400 Invalid timezone format.',
    async (timezone) => {
      const p = await newProject(h().deps);

      const res = await list(p, { display_id: 'any', timezone });

      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual(BAD_ZONE);
    },
  );

  it.each([
    '2024-02-30T00:00:00.000',
    '2023-02-29T00:00:00.000',
    '2024-01-01T24:00:00.000',
    '2024-01-01T23:59:60.000',
    '2024-01-01T00:00:00.000Z',
    '2024-01-01T00:00:00.000+05:30',
    '2024-01-01',
    '2024-01-01 00:00:00.000',
    'yesterday',
    '1714000000000',
  ])('when a timestamp is %s, then 400 Invalid timestamp format.', async (value) => {
    const p = await newProject(h().deps);

    const start = await list(p, { display_id: 'any', start_timestamp: value });
    const end = await list(p, { display_id: 'any', end_timestamp: value });

    expect(start.statusCode).toBe(400);
    expect(start.json()).toEqual(BAD_TS);
    expect(end.json()).toEqual(BAD_TS);
  });

  it('when timezone or a timestamp is repeated, then 400 with its text', async () => {
    const p = await newProject(h().deps);

    const zones = await list(p, 'display_id=x&timezone=UTC&timezone=UTC');
    const stamps = await list(
      p,
      'display_id=x&start_timestamp=2024-01-01T00:00:00.000&start_timestamp=2024-01-02T00:00:00.000',
    );

    expect(zones.json()).toEqual(BAD_ZONE);
    expect(stamps.json()).toEqual(BAD_TS);
  });
});

describe('401', () => {
  it.each<[string, Record<string, string>]>([
    ['no key', {}],
    ['an empty key', { 'service-key': '' }],
    ['a wrong key', { 'service-key': 'sk_wrong' }],
  ])('when the request has %s, then 401 Authentication failed.', async (_case, headers) => {
    const p = await newProject(h().deps);

    const res = await list(p, { display_id: 'x' }, headers);

    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual(AUTH_FAILED);
  });

  it('when the project token is sent as the key, then 401', async () => {
    const p = await newProject(h().deps);

    const res = await list(p, { display_id: 'x' }, { 'service-key': p.token });

    expect(res.json()).toEqual(AUTH_FAILED);
  });

  it('when the key comes as linkrunner-key, then it is accepted', async () => {
    const p = await newProject(h().deps);
    const c = await campaignWithListings(h().deps, p);

    const res = await list(p, { display_id: c.displayId }, { 'linkrunner-key': p.serverKey });

    expect(res.statusCode).toBe(200);
  });
});

describe('404', () => {
  it('when the display id names no campaign, then 404 Resource not found.', async () => {
    const p = await newProject(h().deps);

    const res = await list(p, { display_id: 'nope' });

    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual(NOT_FOUND);
  });

  it("when project B's key asks for project A's campaign, then 404 and nothing of A leaks", async () => {
    const a = await newProject(h().deps);
    const b = await newProject(h().deps);
    const c = await campaignWithListings(h().deps, a);
    await userAt(a, c.id, 'a-user', Date.now());

    const res = await list(b, { display_id: c.displayId });

    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual(NOT_FOUND);
  });

  it('when the campaign was deleted, then 404', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const c = await campaignWithListings(deps, p);
    await deleteCampaign(deps, p.project, c.displayId);

    const res = await list(p, { display_id: c.displayId });

    expect(res.json()).toEqual(NOT_FOUND);
  });
});

describe('422', () => {
  it.each([
    '',
    'start_timestamp=2024-01-01T00:00:00.000',
    'display_id=',
    'display_id=%20%20',
    'display_id=a&display_id=b',
  ])('when the query is "%s", then 422 Required parameter missing.', async (qs) => {
    const p = await newProject(h().deps);

    const res = await list(p, qs);

    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual(MISSING);
  });

  it('when display_id is missing and the timezone is bad too, then the 422 comes first', async () => {
    const p = await newProject(h().deps);

    const res = await list(p, { timezone: 'Mars/Base' });

    expect(res.json()).toEqual(MISSING);
  });

  it.each<[string, string]>([
    ['page=0', "Invalid page number '0'. Page must be a positive integer."],
    ['page=abc', "Invalid page number 'abc'. Page must be a positive integer."],
    ['limit=0', "Invalid limit '0'. Limit must be an integer between 1 and 1000."],
    ['limit=1.5', "Invalid limit '1.5'. Limit must be an integer between 1 and 1000."],
    ['limit=1001', "Limit '1001' exceeds the maximum of 1000."],
  ])('when %s, then 422 with the exact text', async (qs, msg) => {
    const p = await newProject(h().deps);
    const c = await campaignWithListings(h().deps, p);

    const res = await list(p, `display_id=${c.displayId}&${qs}`);

    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ msg, status: 422 });
  });
});

describe('init-registered installs', () => {
  it('when a real init install is pending, then its user is not listed until it is attributed', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const c = await campaignWithListings(deps, p);
    const iid = randomUUID();
    await init(h(), p.token, { install_instance_id: iid }, randomIp());
    await trigger(h(), p.token, iid, 'waiting');

    const res = await list(p, { display_id: c.displayId });

    expect(res.json().data.total_users).toBe(0);
  });
});

describe('OpenAPI', () => {
  it('when /openapi.json is fetched, then it documents the route with display_id required and the rest optional', async () => {
    const res = await h().app.inject({ method: 'GET', url: '/openapi.json' });
    const op = res.json().paths['/api/v1/attributed-users']?.get as {
      parameters: { name: string; in: string; required: boolean }[];
      responses: Record<string, unknown>;
    };

    expect(op.parameters.map((p) => [p.name, p.in, p.required]).sort()).toEqual([
      ['display_id', 'query', true],
      ['end_timestamp', 'query', false],
      ['limit', 'query', false],
      ['page', 'query', false],
      ['start_timestamp', 'query', false],
      ['timezone', 'query', false],
    ]);
    expect(Object.keys(op.responses)).toEqual(['200', '400', '401', '404', '422', '429', '500', '503']);
  });
});
