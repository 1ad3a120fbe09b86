// Analytics integrations (product notes "Integrations list"): a registered user's install
// attribution reaches Braze, Mixpanel, Amplitude and PostHog through each vendor's public ingestion
// API, exactly as the vendor documents it (endpoint, auth, body), named by the vendor's user_data
// id or the user id; one delivery per (user, ids) and vendor: a repeat sends nothing, a new id
// sends again; organic users are marked so analysts can segment them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attribute, attributedInstall, post } from '../support/client.ts';
import { deliverAt, deliveryEnv, deliveryRows } from '../support/deliveries.ts';
import { connectVendor, FakeAnalytics, VENDOR_KEYS } from '../support/fake-analytics.ts';
import { newProject, type TestProject, useHarness } from '../support/harness.ts';
import { initAndroid } from '../support/held-webhooks.ts';

const fake = new FakeAnalytics();
const env = deliveryEnv();
beforeAll(async () => {
  env.ANALYTICS_BASE_URL = await fake.start();
});
afterAll(() => fake.stop());
const h = useHarness({ env });

const trigger = (p: TestProject, iid: string, userData: Record<string, unknown>) =>
  post(h(), 'trigger', {
    token: p.token,
    platform: 'ANDROID',
    install_instance_id: iid,
    user_data: userData,
    data: { device_data: {} },
    event: 'SIGNUP',
  });

/** A project connected to every vendor, and a user whose install a META click decided. */
async function attributedUser(userData: Record<string, unknown>) {
  const p = await newProject(h().deps);
  for (const v of ['braze', 'mixpanel', 'amplitude', 'posthog'] as const) {
    await connectVendor(h().deps, p, v);
  }
  const { campaign, iid } = await attributedInstall(h(), p);
  expect((await trigger(p, iid, userData)).statusCode).toBe(200);
  const [install] = await h().deps.sql<{ attributed_at: Date; created_at: Date }[]>`
    SELECT attributed_at, created_at FROM installs WHERE install_instance_id = ${iid}`;
  const props = {
    attribution_organic: false,
    attribution_network: 'META',
    attribution_campaign_name: 'Spring',
    attribution_campaign_id: campaign.displayId,
    attribution_ad_channel: 'META',
    attribution_ad_set: 'Set 1',
    attribution_ad_set_id: 'as1',
    attribution_ad_creative: 'Creative 1',
    attribution_ad_creative_id: 'cr1',
    attribution_attributed_on: install?.attributed_at.toISOString(),
    attribution_installed_at: install?.created_at.toISOString(),
  };
  return { p, iid, props };
}

const send = (p: TestProject, vendor: string) => deliverAt(h().deps, p, `analytics:${vendor}`);
const lastBody = (vendor: 'braze' | 'mixpanel' | 'amplitude' | 'posthog') => fake.hitsOf(vendor).at(-1);

describe('what each vendor receives', () => {
  it('when a user with vendor ids signs up on an attributed install, then each vendor gets its documented request', async () => {
    const { p, props } = await attributedUser({
      id: 'user-0001',
      mixpanel_distinct_id: 'mp-distinct-1',
      amplitude_device_id: 'amp-device-1',
      posthog_distinct_id: 'ph-distinct-1',
    });

    for (const v of ['braze', 'mixpanel', 'amplitude', 'posthog']) {
      expect(await send(p, v)).toMatchObject({ claimed: 1, sent: 1, dead: 0, retry: false });
    }

    const braze = lastBody('braze');
    expect(braze?.path).toBe('/users/track');
    expect(braze?.headers.authorization).toBe(`Bearer ${VENDOR_KEYS.braze}`);
    expect(braze?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(braze?.body ?? '')).toEqual({ attributes: [{ external_id: 'user-0001', ...props }] });

    const mixpanel = lastBody('mixpanel');
    expect(mixpanel?.path).toBe('/engage?verbose=1&strict=1');
    expect(JSON.parse(mixpanel?.body ?? '')).toEqual([
      { $token: VENDOR_KEYS.mixpanel, $distinct_id: 'mp-distinct-1', $ip: '0', $ignore_time: true, $set: props },
    ]);

    const amplitude = lastBody('amplitude');
    expect(amplitude?.path).toBe('/identify');
    expect(amplitude?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const form = new URLSearchParams(amplitude?.body);
    expect(form.get('api_key')).toBe(VENDOR_KEYS.amplitude);
    expect(JSON.parse(form.get('identification') ?? '')).toEqual([
      { user_id: 'user-0001', device_id: 'amp-device-1', user_properties: { $set: props } },
    ]);

    const posthog = lastBody('posthog');
    expect(posthog?.path).toBe('/batch/');
    const ph = JSON.parse(posthog?.body ?? '');
    expect(ph).toEqual({
      api_key: VENDOR_KEYS.posthog,
      batch: [
        { event: '$set', distinct_id: 'ph-distinct-1', properties: { $set: props }, timestamp: expect.any(String) },
      ],
    });
    expect((await deliveryRows(h().deps, p)).filter((r) => r.destination.startsWith('analytics:'))).toHaveLength(4);
  });

  it('when the app sends braze_device_id and no other vendor id, then Braze gets it as braze_id and the others the user id', async () => {
    const { p, props } = await attributedUser({ id: 'user-0002', braze_device_id: 'braze-dev-9' });

    for (const v of ['braze', 'mixpanel', 'amplitude', 'posthog']) {
      await send(p, v);
    }

    expect(JSON.parse(lastBody('braze')?.body ?? '').attributes).toEqual([{ braze_id: 'braze-dev-9', ...props }]);
    expect(JSON.parse(lastBody('mixpanel')?.body ?? '')[0].$distinct_id).toBe('user-0002');
    const identification = JSON.parse(new URLSearchParams(lastBody('amplitude')?.body).get('identification') ?? '');
    expect(identification).toEqual([{ user_id: 'user-0002', user_properties: { $set: props } }]);
    expect(JSON.parse(lastBody('posthog')?.body ?? '').batch[0].distinct_id).toBe('user-0002');
  });

  it('when the install is organic, then the properties say organic and carry no campaign', async () => {
    const p = await newProject(h().deps);
    await connectVendor(h().deps, p, 'posthog');
    const iid = await initAndroid(h(), p);
    await attribute(h(), p, iid);
    expect((await trigger(p, iid, { id: 'organic-1' })).statusCode).toBe(200);

    await send(p, 'posthog');

    const set = JSON.parse(lastBody('posthog')?.body ?? '').batch[0].properties.$set;
    expect(set).toEqual({
      attribution_organic: true,
      attribution_network: 'ORGANIC',
      attribution_attributed_on: expect.any(String),
      attribution_installed_at: expect.any(String),
    });
  });
});

describe('one delivery per user and id', () => {
  it('when the same ids come again, then nothing more is queued; a new id queues one more', async () => {
    const { p, iid } = await attributedUser({ id: 'user-0003', mixpanel_distinct_id: 'mp-a' });
    const mixpanelRows = async () =>
      (await deliveryRows(h().deps, p)).filter((r) => r.destination === 'analytics:mixpanel');
    expect(await mixpanelRows()).toHaveLength(1);

    await trigger(p, iid, { id: 'user-0003', mixpanel_distinct_id: 'mp-a' });
    const sameAgain = await post(h(), 'set-user-data', {
      token: p.token,
      platform: 'ANDROID',
      install_instance_id: iid,
      user_data: { id: 'user-0003', mixpanel_distinct_id: 'mp-a' },
    });
    expect(sameAgain.statusCode).toBe(200);
    expect(await mixpanelRows()).toHaveLength(1);

    const newId = await post(h(), 'set-user-data', {
      token: p.token,
      platform: 'ANDROID',
      install_instance_id: iid,
      user_data: { id: 'user-0003', mixpanel_distinct_id: 'mp-b' },
    });
    expect(newId.statusCode).toBe(200);
    const rows = await mixpanelRows();
    expect(rows.map((r) => (r.payload.ids as Record<string, string>).distinct_id)).toEqual(['mp-a', 'mp-b']);
  });

  it('when a connection is inactive, then nothing is queued for it', async () => {
    const p = await newProject(h().deps);
    await connectVendor(h().deps, p, 'braze', false);
    const { iid } = await attributedInstall(h(), p);

    await trigger(p, iid, { id: 'user-0004' });

    expect(await deliveryRows(h().deps, p)).toEqual([]);
  });
});
