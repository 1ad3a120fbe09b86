// PUT, GET and DELETE /api/v1/connections/{braze,mixpanel,amplitude,posthog,ga4,clevertap} (texts are ours): 200
// with the connection (key fingerprint only, endpoint resolved from the region), 400 with the broken
// rule, 401 with the campaign family's texts; one project's key never reads or changes another's.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deliveryEnv } from '../../support/deliveries.ts';
import { CLEVERTAP_ACCOUNT_ID, FIREBASE_APP_ID, VENDOR_KEYS } from '../../support/fake-analytics.ts';
import { newProject, type TestProject, useHarness } from '../../support/harness.ts';

const h = useHarness({ env: deliveryEnv() });

type Who = TestProject | { headers: Record<string, string> };
const call = (method: 'PUT' | 'GET' | 'DELETE', who: Who, vendor: string, payload?: unknown) =>
  h().app.inject({
    method,
    url: `/api/v1/connections/${vendor}`,
    headers: who.headers,
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
const fingerprint = (k: string) => createHash('sha256').update(k).digest('hex').slice(0, 12);

describe('200', () => {
  it.each([
    [
      'braze',
      { api_key: VENDOR_KEYS.braze, rest_endpoint: 'https://rest.fra-01.braze.eu/' },
      'https://rest.fra-01.braze.eu',
    ],
    ['mixpanel', { project_token: VENDOR_KEYS.mixpanel, region: 'eu' }, 'https://api-eu.mixpanel.com'],
    ['amplitude', { api_key: VENDOR_KEYS.amplitude }, 'https://api2.amplitude.com'],
    ['posthog', { project_api_key: VENDOR_KEYS.posthog, host: 'https://ph.example.com/' }, 'https://ph.example.com'],
  ])('when %s is saved active, then it answers the connection without the key', async (vendor, body, endpoint) => {
    const p = await newProject(h().deps);
    const key = Object.values(body)[0] as string;

    const res = await call('PUT', p, vendor, { ...body, active: true });
    const got = await call('GET', p, vendor);

    const name = { braze: 'Braze', mixpanel: 'Mixpanel', amplitude: 'Amplitude', posthog: 'PostHog' }[vendor];
    const data = {
      connected: true,
      vendor,
      endpoint,
      active: true,
      activated_at: expect.any(String),
      key_fingerprint: fingerprint(key),
      updated_at: expect.any(String),
    };
    expect(res.json()).toEqual({ msg: `${name} connection saved.`, status: 200, data });
    expect(got.json()).toEqual({ msg: `${name} connection is set.`, status: 200, data });
    expect(res.body + got.body).not.toContain(key);
  });

  it('when GA4 is saved with its Firebase app id in the EU, then it answers the connection with the app id and without the secret', async () => {
    const p = await newProject(h().deps);
    const body = { api_secret: VENDOR_KEYS.ga4, firebase_app_id: ` ${FIREBASE_APP_ID} `, region: 'eu', active: true };

    const res = await call('PUT', p, 'ga4', body);
    const got = await call('GET', p, 'ga4');
    const del = await call('DELETE', p, 'ga4');

    const data = {
      connected: true,
      vendor: 'ga4',
      endpoint: 'https://region1.google-analytics.com',
      firebase_app_id: FIREBASE_APP_ID,
      active: true,
      activated_at: expect.any(String),
      key_fingerprint: fingerprint(VENDOR_KEYS.ga4),
      updated_at: expect.any(String),
    };
    expect(res.json()).toEqual({ msg: 'GA4 connection saved.', status: 200, data });
    expect(got.json()).toEqual({ msg: 'GA4 connection is set.', status: 200, data });
    expect(del.json()).toEqual({ msg: 'GA4 connection removed.', status: 200, data: { removed: true } });
    expect(res.body + got.body).not.toContain(VENDOR_KEYS.ga4);
  });

  it.each([
    [undefined, 'https://api.clevertap.com'],
    ['in1', 'https://in1.api.clevertap.com'],
    [' MEC1 ', 'https://mec1.api.clevertap.com'],
  ])(
    'when CleverTap is saved with region %j, then it answers the region host and the account id, without the passcode',
    async (region, endpoint) => {
      const p = await newProject(h().deps);
      const body = { passcode: VENDOR_KEYS.clevertap, account_id: ` ${CLEVERTAP_ACCOUNT_ID} `, region, active: true };

      const res = await call('PUT', p, 'clevertap', body);
      const got = await call('GET', p, 'clevertap');
      const del = await call('DELETE', p, 'clevertap');

      const data = {
        connected: true,
        vendor: 'clevertap',
        endpoint,
        account_id: CLEVERTAP_ACCOUNT_ID,
        active: true,
        activated_at: expect.any(String),
        key_fingerprint: fingerprint(VENDOR_KEYS.clevertap),
        updated_at: expect.any(String),
      };
      expect(res.json()).toEqual({ msg: 'CleverTap connection saved.', status: 200, data });
      expect(got.json()).toEqual({ msg: 'CleverTap connection is set.', status: 200, data });
      expect(del.json()).toEqual({ msg: 'CleverTap connection removed.', status: 200, data: { removed: true } });
      expect(res.body + got.body).not.toContain(VENDOR_KEYS.clevertap);
    },
  );

  it('when nothing is set, then GET says so and DELETE removes nothing', async () => {
    const p = await newProject(h().deps);

    const got = await call('GET', p, 'posthog');
    const del = await call('DELETE', p, 'posthog');

    expect(got.json()).toEqual({
      msg: 'No PostHog connection is set for this project.',
      status: 200,
      data: { connected: false, vendor: 'posthog' },
    });
    expect(del.json()).toEqual({
      msg: 'No PostHog connection was set; nothing was removed.',
      status: 200,
      data: { removed: false },
    });
  });
});

describe('400', () => {
  it.each([
    ['braze', { api_key: VENDOR_KEYS.braze, active: true }, 'rest_endpoint is a required string'],
    [
      'braze',
      { api_key: VENDOR_KEYS.braze, rest_endpoint: 'http://169.254.169.254', active: true },
      'rest_endpoint must be your Braze REST endpoint, like https://rest.iad-01.braze.com',
    ],
    [
      'mixpanel',
      { project_token: 'short', active: true },
      'project_token must be 8 to 512 letters, digits, _, -, . or :',
    ],
    [
      'mixpanel',
      { project_token: VENDOR_KEYS.mixpanel, region: 'mars', active: true },
      'region must be one of us, eu, in',
    ],
    ['amplitude', { api_key: VENDOR_KEYS.amplitude, active: 'yes' }, 'active must be a boolean'],
    ['amplitude', { active: true }, 'api_key is a required string'],
    [
      'posthog',
      { project_api_key: VENDOR_KEYS.posthog, host: 'https://10.0.0.5', active: true },
      'host must be us, eu or the https URL of your PostHog instance (a DNS name, no credentials)',
    ],
    [
      'posthog',
      { project_api_key: VENDOR_KEYS.posthog, host: 'https://u:p@ph.example.com', active: true },
      'host must be us, eu or the https URL of your PostHog instance (a DNS name, no credentials)',
    ],
    ['ga4', { api_secret: VENDOR_KEYS.ga4, active: true }, 'firebase_app_id is a required string'],
    [
      'ga4',
      { api_secret: VENDOR_KEYS.ga4, firebase_app_id: 'G-ABC123', active: true },
      'firebase_app_id must be your Firebase app id, like 1:1234567890:android:0a1b2c3d4e5f6789',
    ],
    [
      'ga4',
      { api_secret: VENDOR_KEYS.ga4, firebase_app_id: FIREBASE_APP_ID, region: 'asia', active: true },
      'region must be one of us, eu',
    ],
    ['clevertap', { account_id: CLEVERTAP_ACCOUNT_ID, active: true }, 'passcode is a required string'],
    ['clevertap', { passcode: VENDOR_KEYS.clevertap, active: true }, 'account_id is a required string'],
    [
      'clevertap',
      { passcode: VENDOR_KEYS.clevertap, account_id: '865-k5w-r47z', active: true },
      'account_id must be your CleverTap account id (Project ID), like 865-K5W-R47Z or TEST-865-K5W-R47Z',
    ],
    [
      'clevertap',
      { passcode: VENDOR_KEYS.clevertap, account_id: CLEVERTAP_ACCOUNT_ID, region: 'eu', active: true },
      'region must be one of eu1, in1, sg1, us1, aps3, mec1',
    ],
  ])('when %s gets %j, then 400 with the rule', async (vendor, body, problem) => {
    const p = await newProject(h().deps);

    const res = await call('PUT', p, vendor, body);

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ msg: `Invalid connection: ${problem}`, status: 400 });
  });

  // A project's host must not point the delivery worker at the machines beside it (README
  // "Analytics integrations"): loopback and metadata names in their DNS spellings are refused.
  it.each([
    'https://localhost./',
    'https://LOCALHOST.:6379',
    'https://localhost.localdomain/',
    'https://metadata.google.internal/',
  ])('when a PostHog host is %s, then 400 with the rule and nothing is saved', async (host) => {
    const p = await newProject(h().deps);

    const res = await call('PUT', p, 'posthog', { project_api_key: VENDOR_KEYS.posthog, host, active: true });
    const got = await call('GET', p, 'posthog');

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      msg: 'Invalid connection: host must be us, eu or the https URL of your PostHog instance (a DNS name, no credentials)',
      status: 400,
    });
    expect(got.json()).toMatchObject({ data: { connected: false, vendor: 'posthog' } });
  });
});

describe('401', () => {
  it.each(['PUT', 'GET', 'DELETE'] as const)(
    'when %s has no or a wrong server key, then the campaign texts',
    async (m) => {
      const missing = await call(m, { headers: {} }, 'braze');
      const wrong = await call(m, { headers: { 'service-key': 'nope' } }, 'braze');

      expect(missing.json()).toEqual({ msg: 'Server key missing!', status: 401 });
      expect(wrong.json()).toEqual({ msg: 'Server key invalid!', status: 401 });
    },
  );
});

describe('tenant isolation', () => {
  it("when another project's key reads, changes or removes, then it sees and touches only its own", async () => {
    const a = await newProject(h().deps);
    const b = await newProject(h().deps);
    await call('PUT', a, 'mixpanel', { project_token: VENDOR_KEYS.mixpanel, active: true });

    const read = await call('GET', b, 'mixpanel');
    const removed = await call('DELETE', b, 'mixpanel');
    await call('PUT', b, 'mixpanel', { project_token: 'other-token-123', region: 'in', active: false });
    const mine = await call('GET', a, 'mixpanel');

    expect(read.json().data).toEqual({ connected: false, vendor: 'mixpanel' });
    expect(removed.json().data).toEqual({ removed: false });
    expect(mine.json().data).toMatchObject({
      endpoint: 'https://api.mixpanel.com',
      active: true,
      key_fingerprint: fingerprint(VENDOR_KEYS.mixpanel),
    });
  });
});
