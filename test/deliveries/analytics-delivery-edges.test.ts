// Analytics deliveries at their edges: a held row released with the decided properties when the
// decision commits while a job holds it at the hour's edge, or dead unsent after an undecided hour
// and sent once on a later decision; dedupe keys that survive a user's delete and re-registration;
// ids with &, =, +, %, quotes and emoji reaching Amplitude and PostHog exactly; two projects' users
// never sharing a request or a key; a key rotated or a connection switched off after the claim.
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverAnalytics } from '../../src/domain/analytics/deliver-analytics.ts';
import { setAnalyticsConnection } from '../../src/domain/analytics/set-analytics-connection.ts';
import { HOLD_FOR_ATTRIBUTION_MS } from '../../src/domain/deliveries/queue-deliveries.ts';
import { UNDECIDED_REASON } from '../../src/domain/deliveries/settle-held-deliveries.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { claimDueDeliveries } from '../../src/store/postgres/deliveries.ts';
import { attribute, attributedInstall } from '../support/client.ts';
import { deliverAt, deliveryEnv, deliveryRows } from '../support/deliveries.ts';
import { connectVendor, FakeAnalytics, signUp, VENDOR_KEYS } from '../support/fake-analytics.ts';
import { newProject, type TestProject, useHarness } from '../support/harness.ts';
import { initAndroid } from '../support/held-webhooks.ts';

const fake = new FakeAnalytics();
const env = deliveryEnv();
beforeAll(async () => {
  env.ANALYTICS_BASE_URL = await fake.start();
});
afterAll(() => fake.stop());
const h = useHarness({ env });

const analyticsRows = async (p: TestProject) =>
  (await deliveryRows(h().deps, p)).filter((r) => r.destination.startsWith('analytics:'));
const mixpanelUpdatesFor = (distinctId: string) =>
  fake
    .hitsOf('mixpanel')
    .flatMap((x) => JSON.parse(x.body) as { $distinct_id: string; $set: Record<string, unknown>; $token: string }[])
    .filter((u) => u.$distinct_id === distinctId);

describe('held rows at the hour edge', () => {
  it('when the decision commits while a job holds the row whose hour just ended, then the job releases it and it goes out with the decided properties', async () => {
    const p = await newProject(h().deps);
    await connectVendor(h().deps, p, 'mixpanel');
    const iid = await initAndroid(h(), p);
    const distinct = `mp-edge-${randomUUID()}`;
    await signUp(h(), p, iid, { id: `edge-${randomUUID()}`, mixpanel_distinct_id: distinct });
    const atMs = Date.now() + HOLD_FOR_ATTRIBUTION_MS + 1_000;
    const job = { projectId: p.project.id, destination: 'analytics:mixpanel' };
    const claimed = await claimDueDeliveries(h().deps.sql, { ...job, now: new Date(atMs), limit: 10, leaseMs: 60_000 });
    expect(claimed.map((r) => r.held)).toEqual([true]);

    await attribute(h(), p, iid);
    const settled = await deliverAnalytics({ ...h().deps, now: () => atMs }, job, 'mixpanel', claimed);
    const sent = await deliverAt(h().deps, p, 'analytics:mixpanel', atMs);

    expect(settled).toMatchObject({ claimed: 1, sent: 0, dead: 0 });
    expect(sent).toMatchObject({ claimed: 1, sent: 1 });
    const [update] = mixpanelUpdatesFor(distinct);
    expect(update?.$set).toMatchObject({
      attribution_organic: true,
      attribution_network: 'ORGANIC',
      attribution_attributed_on: expect.any(String),
    });
    expect(mixpanelUpdatesFor(distinct)).toHaveLength(1);
    expect((await analyticsRows(p)).map((r) => r.status)).toEqual(['sent']);
  });

  it('when the install stays undecided for the hour, then the row is dead unsent; a later decision still sends it once with its properties', async () => {
    const p = await newProject(h().deps);
    await connectVendor(h().deps, p, 'mixpanel');
    const iid = await initAndroid(h(), p);
    const distinct = `mp-late-${randomUUID()}`;
    await signUp(h(), p, iid, { id: `late-${randomUUID()}`, mixpanel_distinct_id: distinct });
    const atMs = Date.now() + HOLD_FOR_ATTRIBUTION_MS + 1_000;

    const expired = await deliverAt(h().deps, p, 'analytics:mixpanel', atMs);
    const [dead] = await analyticsRows(p);
    await attribute(h(), p, iid);
    const later = await deliverAt(h().deps, p, 'analytics:mixpanel', atMs + 1_000);

    expect(expired).toMatchObject({ claimed: 1, sent: 0, dead: 1 });
    expect(dead).toMatchObject({ status: 'dead', last_error: UNDECIDED_REASON });
    expect(later).toMatchObject({ claimed: 1, sent: 1 });
    expect(mixpanelUpdatesFor(distinct).map((u) => u.$set.attribution_network)).toEqual(['ORGANIC']);
  });

  it('when an analytics row ends dead after the undecided hour, then the warning names an analytics delivery, not a webhook', async () => {
    const p = await newProject(h().deps);
    await connectVendor(h().deps, p, 'braze');
    const iid = await initAndroid(h(), p);
    await signUp(h(), p, iid, { id: `warn-${randomUUID()}` });
    const lines: string[] = [];
    const log = createLogger('trace', new Writable({ write: (c, _e, done) => done(void lines.push(String(c))) }));

    await deliverAt({ ...h().deps, log }, p, 'analytics:braze', Date.now() + HOLD_FOR_ATTRIBUTION_MS + 1_000);

    const warned = lines.map((l) => JSON.parse(l) as { msg: string; destination?: string });
    expect(warned.filter((l) => l.destination === 'analytics:braze').map((l) => l.msg)).toEqual([
      'analytics delivery held past its install attribution',
    ]);
  });
});

describe('dedupe keys', () => {
  it('when a user is deleted and registers again with the same ids, then the new registration is sent again', async () => {
    const p = await newProject(h().deps);
    await connectVendor(h().deps, p, 'mixpanel');
    const userId = `again-${randomUUID()}`;
    const distinct = `mp-${userId}`;
    const first = await attributedInstall(h(), p);
    await signUp(h(), p, first.iid, { id: userId, mixpanel_distinct_id: distinct });
    await deliverAt(h().deps, p, 'analytics:mixpanel');

    const del = await h().app.inject({ method: 'DELETE', url: `/api/v1/users/${userId}`, headers: p.headers });
    expect(del.statusCode).toBe(200);
    const second = await initAndroid(h(), p);
    await attribute(h(), p, second);
    await signUp(h(), p, second, { id: userId, mixpanel_distinct_id: distinct });
    const out = await deliverAt(h().deps, p, 'analytics:mixpanel');

    expect(out).toMatchObject({ claimed: 1, sent: 1 });
    const updates = mixpanelUpdatesFor(distinct);
    expect(updates.map((u) => u.$set.attribution_network)).toEqual(['META', 'ORGANIC']);
  });
});

describe('ids with odd characters', () => {
  it('when ids hold &, =, +, %, spaces, quotes and emoji, then Amplitude and PostHog get them exactly', async () => {
    const p = await newProject(h().deps);
    await connectVendor(h().deps, p, 'amplitude');
    await connectVendor(h().deps, p, 'posthog');
    const { iid } = await attributedInstall(h(), p);
    const tag = randomUUID().slice(0, 8);
    const userId = `u&id=1+2 %41/"q"😀-${tag}`;
    const deviceId = `dev&x=y+z %20 ü-${tag}`;
    await signUp(h(), p, iid, { id: userId, amplitude_device_id: deviceId, posthog_distinct_id: `ph "${tag}" 😀` });

    await deliverAt(h().deps, p, 'analytics:amplitude');
    await deliverAt(h().deps, p, 'analytics:posthog');

    const amp = fake.hitsOf('amplitude').find((x) => x.body.includes(tag));
    const form = new URLSearchParams(amp?.body);
    expect(form.get('api_key')).toBe(VENDOR_KEYS.amplitude);
    const [ident] = JSON.parse(form.get('identification') ?? '[]');
    expect(ident).toMatchObject({ user_id: userId, device_id: deviceId });
    const ph = fake.hitsOf('posthog').find((x) => x.body.includes(tag));
    expect(JSON.parse(ph?.body ?? '{}').batch[0].distinct_id).toBe(`ph "${tag}" 😀`);
  });
});

describe('tenants and connections changing mid-batch', () => {
  it("when two projects' users are due at once, then each request carries one project's users under its own key", async () => {
    const a = await newProject(h().deps);
    const b = await newProject(h().deps);
    const keyB = 'mixpaneltokenOFPROJECTB000000001';
    await connectVendor(h().deps, a, 'mixpanel');
    await setAnalyticsConnection(h().deps, b.project.id, {
      vendor: 'mixpanel',
      key: keyB,
      endpoint: 'eu',
      active: true,
    });
    const da = `mp-a-${randomUUID()}`;
    const db = `mp-b-${randomUUID()}`;
    await signUp(h(), a, (await attributedInstall(h(), a)).iid, { id: `ua-${randomUUID()}`, mixpanel_distinct_id: da });
    await signUp(h(), b, (await attributedInstall(h(), b)).iid, { id: `ub-${randomUUID()}`, mixpanel_distinct_id: db });

    await deliverAt(h().deps, a, 'analytics:mixpanel');
    await deliverAt(h().deps, b, 'analytics:mixpanel');

    expect(mixpanelUpdatesFor(da).map((u) => u.$token)).toEqual([VENDOR_KEYS.mixpanel]);
    expect(mixpanelUpdatesFor(db).map((u) => u.$token)).toEqual([keyB]);
    const mixed = fake
      .hitsOf('mixpanel')
      .filter((x) => x.body.includes(da) || x.body.includes(db))
      .filter((x) => x.body.includes(da) && x.body.includes(db));
    expect(mixed).toHaveLength(0);
  });

  it('when the key is rotated after the claim, then the batch goes out with the new key; switched off, it stays pending unsent', async () => {
    const p = await newProject(h().deps);
    await connectVendor(h().deps, p, 'braze');
    const { iid } = await attributedInstall(h(), p);
    const userId = `rot-${randomUUID()}`;
    await signUp(h(), p, iid, { id: userId });
    const job = { projectId: p.project.id, destination: 'analytics:braze' };
    const claimed = await claimDueDeliveries(h().deps.sql, { ...job, now: new Date(), limit: 10, leaseMs: 60_000 });
    const rotated = 'braze-rest-key-ROTATED-0000000';
    const setBraze = (active: boolean) =>
      setAnalyticsConnection(h().deps, p.project.id, {
        vendor: 'braze',
        key: rotated,
        endpoint: 'https://rest.iad-01.braze.com',
        active,
      });

    await setBraze(false);
    const off = await deliverAnalytics(h().deps, job, 'braze', claimed);
    await setBraze(true);
    const on = await deliverAnalytics(h().deps, job, 'braze', claimed);

    expect(off).toMatchObject({ claimed: 1, sent: 0, dead: 0 });
    expect(on).toMatchObject({ claimed: 1, sent: 1 });
    const hits = fake.hitsOf('braze').filter((x) => x.body.includes(userId));
    expect(hits.map((x) => x.headers.authorization)).toEqual([`Bearer ${rotated}`]);
  });
});
