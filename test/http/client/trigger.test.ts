// POST /api/client/trigger (spec: 200 {msg, status, data: {deeplink, trigger}}; 400 for a bad token;
// real-clients §4.3, §6, §8.4). The first trigger of a user id in a project registers the user and
// writes one `signups` fact (through the outbox) that carries the install's campaign; a repeated
// trigger or a login on another install is not a sign-up (trigger: false). A login on another
// install marks that install a reinstall. first-time / created-at come at top level (spec) or
// inside user_data (SDKs). Unknown install → 400 `Install not found. Call init first.`.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { localDay } from '../../../src/lib/time.ts';
import {
  attribute,
  attributedInstall,
  campaignWithListings,
  clickLink,
  flushFacts,
  init,
  META_CLICK_QUERY,
  post,
  randomIp,
  useClientHarness,
} from '../../support/client.ts';
import { newProject } from '../../support/harness.ts';
import { appUsers, installUser, organicInstall, signupFacts, trigger } from '../../support/users.ts';

const h = useClientHarness();

const REGISTERED = 'User registered successfully';
const IDENTIFIED = 'User already registered; details updated';
const NOT_FOUND = { msg: 'Install not found. Call init first.', status: 400 };
const ID_REQUIRED = { msg: 'user_data.id must be a non-empty string of at most 256 characters.', status: 400 };

const ORGANIC_COLUMNS = {
  campaign_id: 0,
  display_id: '',
  network: '',
  ad_set_id: '',
  ad_set_name: '',
  creative_id: '',
  creative_name: '',
  keyword_id: '',
  keyword_name: '',
  reengagement_campaign_id: 0,
};

describe('200', () => {
  it('when Android signs up on an attributed install (Gson body, event SIGNUP), then the user is registered and the sign-up carries the campaign', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const { campaign, iid } = await attributedInstall(h(), p);
    // AND-1.1 TriggerRequest through Gson: nulls omitted, `=` and `&` escaped.
    const body = String.raw`{"token":"${p.token}","user_data":{"id":"u-42","name":"Asha","email":"asha@example.com","phone":"+919800000000","mixpanel_distinct_id":"mp\u003d1\u00262","is_first_time_user":true,"user_created_at":"2025-01-15T10:00:00Z"},"platform":"ANDROID","data":{"device_data":{"brand":"samsung","device_name":"samsung SM-S911B","build_number":"20","connectivity":"Wi-Fi"},"plan":"pro"},"install_instance_id":"${iid}","event":"SIGNUP"}`;

    // The sign-up's day is the project's day when it arrived: a run may cross midnight.
    const dayBefore = localDay(Date.now(), p.project.timezone);
    const res = await post(h(), 'trigger', body, { headers: { 'content-type': 'application/json; charset=UTF-8' } });

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      msg: REGISTERED,
      status: 200,
      data: { deeplink: 'myapp://promo/spring', trigger: true },
    });
    expect(await appUsers(deps, p)).toEqual([
      {
        user_id: 'u-42',
        name: 'Asha',
        email: 'asha@example.com',
        phone: '+919800000000',
        user_data: {
          mixpanel_distinct_id: 'mp=1&2',
          is_first_time_user: true,
          user_created_at: '2025-01-15T10:00:00Z',
        },
        device_data: { brand: 'samsung', device_name: 'samsung SM-S911B', build_number: '20', connectivity: 'Wi-Fi' },
        install_instance_id: iid,
        is_first_time_user: true,
        user_created_at: '2025-01-15T10:00:00Z',
        attributed_at: expect.any(Date),
      },
    ]);
    expect(await installUser(deps, p, iid)).toEqual({ user_id: 'u-42', is_reinstall: false });
    await flushFacts(h());
    expect(await signupFacts(deps, p)).toEqual([
      {
        event_id: expect.stringMatching(/^su_/),
        install_instance_id: iid,
        user_id: 'u-42',
        project_tz: p.project.timezone,
        day: expect.toBeOneOf([dayBefore, localDay(Date.now(), p.project.timezone)]),
        platform: 'ANDROID',
        is_first_time: 1,
        ...ORGANIC_COLUMNS,
        campaign_id: campaign.id,
        display_id: campaign.displayId,
        network: 'META',
        ad_set_id: 'as1',
        ad_set_name: 'Set 1',
        creative_id: 'cr1',
        creative_name: 'Creative 1',
      },
    ]);
  });

  it('when iOS signs up (JSONSerialization body: escaped slashes, nulls, flags inside user_data), then 200 and an organic sign-up', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = await organicInstall(h(), p, { platform: 'IOS', iid: 'AbCdEfGhIjKlMnOpQrSt' });
    // iOS 4.0.1 signup: user_data fields inside user_data, time_since_app_install, data = {device_data}.
    const body = String.raw`{"token":"${p.token}","user_data":{"id":"ios-7","name":null,"email":"5f0c3a1b9e7d4c2a8b6f0e1d3c5a7b9e5f0c3a1b9e7d4c2a8b6f0e1d3c5a7b9e","is_first_time_user":false,"user_created_at":"2024-12-01T08:30:00Z","posthog_distinct_id":"ph_1"},"platform":"IOS","install_instance_id":"${iid}","time_since_app_install":42.5,"data":{"device_data":{"device":"iPhone","brand":"Apple","manufacturer":"Apple","version":"2.0","bundle_id":"com.example.shop","timezone":"America\/New_York","adservices_attribution_token":null}}}`;

    const res = await post(h(), 'trigger', body, { headers: { 'content-type': 'application/json' } });

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ msg: REGISTERED, status: 200, data: { deeplink: null, trigger: true } });
    const [user] = await appUsers(deps, p);
    expect(user).toMatchObject({
      user_id: 'ios-7',
      name: null,
      email: '5f0c3a1b9e7d4c2a8b6f0e1d3c5a7b9e5f0c3a1b9e7d4c2a8b6f0e1d3c5a7b9e',
      phone: null,
      user_data: { is_first_time_user: false, user_created_at: '2024-12-01T08:30:00Z', posthog_distinct_id: 'ph_1' },
      device_data: {
        device: 'iPhone',
        brand: 'Apple',
        manufacturer: 'Apple',
        version: '2.0',
        bundle_id: 'com.example.shop',
        timezone: 'America/New_York',
        adservices_attribution_token: null,
      },
      is_first_time_user: false,
      user_created_at: '2024-12-01T08:30:00Z',
    });
    await flushFacts(h());
    expect(await signupFacts(deps, p)).toEqual([
      expect.objectContaining({ user_id: 'ios-7', platform: 'IOS', is_first_time: 0, ...ORGANIC_COLUMNS }),
    ]);
  });

  it('when the spec top-level first-time fields come, then they win over the ones inside user_data', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = await organicInstall(h(), p);

    const res = await trigger(h(), p.token, iid, 'spec-user', {
      user_data: { id: 'spec-user', is_first_time_user: false, user_created_at: 'inner' },
      is_first_time_customer: true,
      customer_created_at: '2025-02-01T00:00:00.000Z',
    });

    expect(res.statusCode).toBe(200);
    expect((await appUsers(deps, p))[0]).toMatchObject({
      is_first_time_user: true,
      user_created_at: '2025-02-01T00:00:00.000Z',
    });
    await flushFacts(h());
    expect(await signupFacts(deps, p)).toEqual([expect.objectContaining({ user_id: 'spec-user', is_first_time: 1 })]);
  });

  it('when user_data.id is a number, then it is stored as its string', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = await organicInstall(h(), p);

    const res = await trigger(h(), p.token, iid, 12345);

    expect(res.statusCode).toBe(200);
    expect((await appUsers(deps, p)).map((u) => u.user_id)).toEqual(['12345']);
    expect(await installUser(deps, p, iid)).toEqual({ user_id: '12345', is_reinstall: false });
  });

  it('when the same user triggers again on the same install, then trigger false, details refreshed, one sign-up', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = await organicInstall(h(), p);
    await trigger(h(), p.token, iid, 'u1', {
      user_data: { id: 'u1', name: 'Old', email: 'old@example.com', plan: 'free', ref: 'x' },
      data: { device_data: { brand: 'Google' } },
    });
    const [before] = await appUsers(deps, p);

    const res = await trigger(h(), p.token, iid, 'u1', {
      user_data: { id: 'u1', name: 'New', plan: 'pro', is_first_time_user: true },
      data: {},
    });

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ msg: IDENTIFIED, status: 200, data: { deeplink: null, trigger: false } });
    expect(await appUsers(deps, p)).toEqual([
      {
        ...before,
        name: 'New',
        email: 'old@example.com',
        user_data: { plan: 'pro', ref: 'x', is_first_time_user: true },
        device_data: { brand: 'Google' },
        is_first_time_user: true,
      },
    ]);
    await flushFacts(h());
    expect((await signupFacts(deps, p)).map((f) => f.user_id)).toEqual(['u1']);
  });

  it('when the user logs in on a second install, then no new sign-up, the first install stays the registering one and the second is a reinstall', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const first = await organicInstall(h(), p);
    await trigger(h(), p.token, first, 'u1');
    const second = await organicInstall(h(), p);

    const res = await trigger(h(), p.token, second, 'u1');

    expect(res.json()).toEqual({ msg: IDENTIFIED, status: 200, data: { deeplink: null, trigger: false } });
    expect((await appUsers(deps, p)).map((u) => [u.user_id, u.install_instance_id])).toEqual([['u1', first]]);
    expect(await installUser(deps, p, first)).toEqual({ user_id: 'u1', is_reinstall: false });
    expect(await installUser(deps, p, second)).toEqual({ user_id: 'u1', is_reinstall: true });
    await flushFacts(h());
    expect((await signupFacts(deps, p)).map((f) => f.install_instance_id)).toEqual([first]);
  });

  it('when a reinstall is marked by trigger before attribution decides, then the decision keeps the mark', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const first = await organicInstall(h(), p);
    await trigger(h(), p.token, first, 'u1');
    const second = randomUUID();
    await init(h(), p.token, { install_instance_id: second }, randomIp());

    await trigger(h(), p.token, second, 'u1');
    await attribute(h(), p, second);

    expect(await installUser(deps, p, second)).toEqual({ user_id: 'u1', is_reinstall: true });
  });

  it('when attribution is still pending at sign-up, then the fact waits and then carries the campaign', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const campaign = await campaignWithListings(deps, p);
    const ip = randomIp();
    const { referrer } = await clickLink(h(), campaign, { ip, query: META_CLICK_QUERY });
    await flushFacts(h());
    const iid = randomUUID();
    await init(h(), p.token, { install_instance_id: iid, device_data: { install_ref: referrer } }, ip);

    const res = await trigger(h(), p.token, iid, 'early-bird');
    await flushFacts(h());
    const whilePending = await signupFacts(deps, p);
    await attribute(h(), p, iid);
    await flushFacts(h());

    expect(res.json()).toEqual({ msg: REGISTERED, status: 200, data: { deeplink: null, trigger: true } });
    expect(whilePending).toEqual([]);
    expect(await signupFacts(deps, p)).toEqual([
      expect.objectContaining({
        user_id: 'early-bird',
        campaign_id: campaign.id,
        display_id: campaign.displayId,
        network: 'META',
        ad_set_id: 'as1',
        creative_id: 'cr1',
      }),
    ]);
  });

  it('when the same new user triggers 10 times at once, then exactly one registers and one sign-up is written', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = await organicInstall(h(), p);

    const answers = await Promise.all(Array.from({ length: 10 }, () => trigger(h(), p.token, iid, 'racer')));

    expect(answers.map((r) => r.statusCode)).toEqual(Array(10).fill(200));
    expect(answers.filter((r) => r.json().data.trigger === true)).toHaveLength(1);
    await flushFacts(h());
    expect(await signupFacts(deps, p)).toHaveLength(1);
  });
});

describe('400', () => {
  it('when the token is wrong, then 400 and nothing is stored', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = await organicInstall(h(), p);

    const res = await trigger(h(), 'pt_wrong', iid, 'u1');

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ msg: 'Invalid or missing project token.', status: 400 });
    expect(await appUsers(deps, p)).toEqual([]);
  });

  it('when the install was never registered, then 400 Install not found. and no user is created', async () => {
    const { deps } = h();
    const p = await newProject(deps);

    const res = await trigger(h(), p.token, randomUUID(), 'u1');

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(NOT_FOUND);
    expect(await appUsers(deps, p)).toEqual([]);
  });

  it("when project B's token names project A's install, then 400 and A's install stays untied", async () => {
    const { deps } = h();
    const a = await newProject(deps);
    const b = await newProject(deps);
    const iid = await organicInstall(h(), a);

    const res = await trigger(h(), b.token, iid, 'intruder');

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(NOT_FOUND);
    expect(await installUser(deps, a, iid)).toEqual({ user_id: null, is_reinstall: false });
    expect(await appUsers(deps, a)).toEqual([]);
    expect(await appUsers(deps, b)).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, { msg: string; status: number }]>([
    [
      'no install_instance_id',
      { install_instance_id: undefined },
      {
        msg: 'install_instance_id must be a non-empty string of at most 128 characters.',
        status: 400,
      },
    ],
    ['no user_data', { user_data: undefined }, { msg: 'user_data must be an object.', status: 400 }],
    ['user_data as a string', { user_data: 'u1' }, { msg: 'user_data must be an object.', status: 400 }],
    ['user_data as an array', { user_data: ['u1'] }, { msg: 'user_data must be an object.', status: 400 }],
    ['no user_data.id', { user_data: { name: 'x' } }, ID_REQUIRED],
    ['a null user_data.id', { user_data: { id: null } }, ID_REQUIRED],
    ['an empty user_data.id', { user_data: { id: '' } }, ID_REQUIRED],
    ['a blank user_data.id', { user_data: { id: '   ' } }, ID_REQUIRED],
    ['an object user_data.id', { user_data: { id: { a: 1 } } }, ID_REQUIRED],
    ['a boolean user_data.id', { user_data: { id: true } }, ID_REQUIRED],
    ['a 257-character user_data.id', { user_data: { id: 'x'.repeat(257) } }, ID_REQUIRED],
    [
      'an object email',
      { user_data: { id: 'u1', email: { a: 1 } } },
      {
        msg: 'user_data.email must be a string.',
        status: 400,
      },
    ],
  ])('when the body has %s, then 400 with the exact text', async (_case, patch, expected) => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = await organicInstall(h(), p);

    const res = await trigger(h(), p.token, iid, 'u1', patch);

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(expected);
    expect(await appUsers(deps, p)).toEqual([]);
  });
});
