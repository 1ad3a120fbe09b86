// GA4 (Measurement Protocol for apps): a user whose app sent the Firebase app instance id
// (ga_app_instance_id, 32 hex digits) gets the install attribution as user properties with an
// `install_attribution` event, one request per user at {host}/mp/collect?firebase_app_id&api_secret;
// names GA4 would drop (over 24 characters) are shortened, values cut at 36; a user without a valid
// instance id is not queued; after a failure to retry the batch's other users are given back untried.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attributedInstall } from '../support/client.ts';
import { deliverAt, deliveryEnv, deliveryRows } from '../support/deliveries.ts';
import { connectVendor, FakeAnalytics, FIREBASE_APP_ID, signUp, VENDOR_KEYS } from '../support/fake-analytics.ts';
import { newProject, useHarness } from '../support/harness.ts';

const fake = new FakeAnalytics();
const env = deliveryEnv();
beforeAll(async () => {
  env.ANALYTICS_BASE_URL = await fake.start();
});
afterAll(() => fake.stop());
const h = useHarness({ env });

const instanceId = () => randomUUID().replaceAll('-', '');

async function ga4Project() {
  const p = await newProject(h().deps);
  await connectVendor(h().deps, p, 'ga4');
  const before = fake.hitsOf('ga4').length;
  return { p, newHits: () => fake.hitsOf('ga4').slice(before) };
}

describe('what GA4 receives', () => {
  it('when a user with ga_app_instance_id signs up on an attributed install, then GA4 gets its documented request', async () => {
    const { p, newHits } = await ga4Project();
    const { campaign, iid } = await attributedInstall(h(), p, { name: 'A campaign name longer than GA4 keeps it' });
    const instance = instanceId();
    await signUp(h(), p, iid, { id: `ga-${randomUUID()}`, ga_app_instance_id: instance, ga_session_id: '1712345678' });

    const out = await deliverAt(h().deps, p, 'analytics:ga4');

    expect(out).toMatchObject({ claimed: 1, sent: 1, dead: 0, retry: false });
    const [hit] = newHits();
    const query = new URLSearchParams(hit?.path.split('?')[1]);
    expect(hit?.path.split('?')[0]).toBe('/mp/collect');
    expect(Object.fromEntries(query)).toEqual({ firebase_app_id: FIREBASE_APP_ID, api_secret: VENDOR_KEYS.ga4 });
    const body = JSON.parse(hit?.body ?? '{}');
    expect(body).toEqual({
      app_instance_id: instance,
      user_properties: expect.any(Object),
      events: [{ name: 'install_attribution', params: {} }],
    });
    expect(body.user_properties).toMatchObject({
      attribution_organic: { value: 'false' },
      attribution_network: { value: 'META' },
      attribution_campaign: { value: 'A campaign name longer than GA4 keep' },
      attribution_campaign_id: { value: campaign.displayId },
      attribution_creative_id: { value: 'cr1' },
      attribution_attributed: { value: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
    });
    for (const name of Object.keys(body.user_properties)) {
      expect(name.length).toBeLessThanOrEqual(24);
    }
  });

  it.each([[{}], [{ ga_app_instance_id: 'not-a-firebase-id' }], [{ ga_app_instance_id: `${instanceId()}0` }]])(
    'when the user_data is %j, then nothing is queued for GA4',
    async (ids) => {
      const { p } = await ga4Project();
      const { iid } = await attributedInstall(h(), p);

      await signUp(h(), p, iid, { id: `ga-none-${randomUUID()}`, ...ids });

      expect(await deliveryRows(h().deps, p)).toEqual([]);
    },
  );
});

describe('one request per user', () => {
  it('when two users are due, then each goes in a request of its own; after a 5xx the other is given back untried', async () => {
    const { p, newHits } = await ga4Project();
    const instances = [instanceId(), instanceId()];
    for (const instance of instances) {
      const { iid } = await attributedInstall(h(), p);
      await signUp(h(), p, iid, { id: `ga-${randomUUID()}`, ga_app_instance_id: instance });
    }
    fake.answerNext('ga4', 1, 503);

    const first = await deliverAt(h().deps, p, 'analytics:ga4');
    const second = await deliverAt(h().deps, p, 'analytics:ga4', Date.now() + 5_000);

    expect(first).toMatchObject({ claimed: 2, sent: 0, retry: true });
    expect(second).toMatchObject({ claimed: 2, sent: 2 });
    const sentTo = newHits().map((x) => JSON.parse(x.body).app_instance_id);
    expect(sentTo).toEqual([instances[0], instances[0], instances[1]]);
    expect((await deliveryRows(h().deps, p)).map((r) => [r.status, r.attempts])).toEqual([
      ['sent', 2],
      ['sent', 1],
    ]);
  });
});
