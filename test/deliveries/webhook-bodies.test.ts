// What install and signup webhooks say (product notes, "Webhooks"): additional_data is the
// trigger's `data` as the SDK sent it (real-clients §4.3: "webhooks forward it as
// `additional_data`"), the campaign fields describe the install's decided attribution even for a
// sign-up that arrived while the install was still being attributed (init answers 202, attribution
// runs in the background), and google_campaign_details / meta_campaign_details carry what the
// winning click or Meta's install referrer told.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWebhook } from '../../src/domain/deliveries/add-webhook.ts';
import { UNDECIDED_REASON } from '../../src/domain/deliveries/settle-held-deliveries.ts';
import { setMetaReferrerKey } from '../../src/domain/projects/set-meta-referrer-key.ts';
import { ANDROID_UA, attribute, campaignWithListings, clickLink, post, randomIp } from '../support/client.ts';
import { deliverAt, deliveryEnv, deliveryRows } from '../support/deliveries.ts';
import { FakeWebhook } from '../support/fake-webhook.ts';
import { newProject, type TestProject, useHarness } from '../support/harness.ts';
import { META_PLAINTEXT, metaInstallRef, sealMeta } from '../support/meta-referrer.ts';

const receiver = new FakeWebhook();
beforeAll(() => receiver.start());
afterAll(() => receiver.stop());
const h = useHarness({ env: deliveryEnv() });

type Body = Record<string, unknown> & { event_type: string };
const bodiesFor = (iid: string): Body[] =>
  receiver.hits.filter((x) => x.body.includes(iid)).map((x) => JSON.parse(x.body) as Body);

async function hookedProject(events = ['install', 'signup']) {
  const p = await newProject(h().deps);
  const hook = await addWebhook(h().deps, p.project.id, { url: receiver.url, events });
  return { p, destination: `webhook:${hook.id}` };
}

async function initAndroid(p: TestProject, deviceData: Record<string, unknown>, ip = randomIp()): Promise<string> {
  const iid = randomUUID();
  const res = await post(
    h(),
    'init',
    { token: p.token, platform: 'ANDROID', install_instance_id: iid, device_data: deviceData },
    { remoteAddress: ip, headers: { 'user-agent': ANDROID_UA } },
  );
  expect(res.statusCode).toBe(202);
  return iid;
}

async function trigger(p: TestProject, iid: string, userId: string, data: Record<string, unknown> = {}) {
  const res = await post(h(), 'trigger', {
    token: p.token,
    platform: 'ANDROID',
    install_instance_id: iid,
    user_data: { id: userId, email: `${userId}@example.com` },
    data: { device_data: {}, ...data },
    event: 'SIGNUP',
  });
  expect(res.statusCode).toBe(200);
}

/** A campaign click from a fresh IP, then init carrying its Play referrer: attributed by play_referrer. */
async function clickedInstall(p: TestProject, campaign: { displayId: string }, query?: string): Promise<string> {
  const ip = randomIp();
  const { referrer } = await clickLink(h(), campaign, { ip, query });
  return initAndroid(p, { install_ref: referrer }, ip);
}

const ATTRIBUTION_KEYS = [
  'campaign_id',
  'campaign_name',
  'network_name',
  'ad_channel',
  'attributed_on',
  'store_click_at',
  'meta_campaign_details',
  'google_campaign_details',
];
const attributionOf = (b: Body | undefined) => Object.fromEntries(ATTRIBUTION_KEYS.map((k) => [k, b?.[k]]));

describe('signup webhook additional_data', () => {
  it("when trigger's data carries the app's own keys, then additional_data forwards them (capped, cleaned) and the user row keeps only device_data", async () => {
    const { p, destination } = await hookedProject(['signup']);
    const iid = await initAndroid(p, {});
    await attribute(h(), p, iid);

    await trigger(p, iid, 'u-add-1', {
      device_data: { brand: 'google' },
      referral_code: 'FRIEND\u000010',
      plan: { tier: 'pro', seats: 3 },
      note: 'x'.repeat(5000),
    });
    expect(await deliverAt(h().deps, p, destination)).toMatchObject({ sent: 1 });

    const [signup] = bodiesFor(iid);
    expect(signup?.additional_data).toEqual({
      device_data: { brand: 'google' },
      referral_code: 'FRIEND10',
      plan: { tier: 'pro', seats: 3 },
      note: 'x'.repeat(4096),
    });
    const [user] = await h().deps.sql<{ user_data: unknown; device_data: unknown }[]>`
      SELECT user_data, device_data FROM app_users WHERE project_id = ${p.project.id} AND user_id = 'u-add-1'`;
    expect(user?.device_data).toEqual({ brand: 'google' });
    expect(JSON.stringify(user?.user_data)).not.toContain('FRIEND10');
  });

  it('when an install is attributed, then its webhook has device_data alone in additional_data', async () => {
    const { p, destination } = await hookedProject(['install']);
    const iid = await initAndroid(p, { brand: 'google' });
    await attribute(h(), p, iid);

    await deliverAt(h().deps, p, destination);

    expect(bodiesFor(iid)[0]?.additional_data).toEqual({ device_data: expect.objectContaining({ brand: 'google' }) });
  });
});

describe('signup webhook of an install still being attributed', () => {
  it('when trigger comes before the decision, then the signup waits and goes out after the install, with its campaign', async () => {
    const { p, destination } = await hookedProject();
    const campaign = await campaignWithListings(h().deps, p);
    const iid = await clickedInstall(p, campaign);
    await trigger(p, iid, 'early-1');

    expect(await deliverAt(h().deps, p, destination)).toMatchObject({ claimed: 0 });
    const decision = await attribute(h(), p, iid);
    expect(decision?.displayId).toBe(campaign.displayId);
    expect(await deliverAt(h().deps, p, destination)).toMatchObject({ claimed: 2, sent: 2 });

    const [install, signup] = bodiesFor(iid);
    expect([install?.event_type, signup?.event_type]).toEqual(['install', 'signup']);
    expect(signup).toMatchObject({
      user_id: 'early-1',
      email: 'early-1@example.com',
      campaign_id: campaign.displayId,
      campaign_name: 'Spring',
      network_name: 'LINK',
      attributed_on: expect.any(String),
    });
    expect(attributionOf(signup)).toEqual(attributionOf(install));
    expect((await deliveryRows(h().deps, p)).map((r) => [r.event_key, r.status])).toEqual([
      [`install:${iid}:`, 'sent'],
      [`signup:${iid}:early-1`, 'sent'],
    ]);
  });

  it('when the install is still undecided an hour later, then the signup goes dead with the reason, unsent, and a later decision sends it after the install', async () => {
    const { p, destination } = await hookedProject();
    const campaign = await campaignWithListings(h().deps, p);
    const iid = await clickedInstall(p, campaign);
    await trigger(p, iid, 'late-1');

    const later = Date.now() + 3600_000 + 60_000;
    expect(await deliverAt(h().deps, p, destination, later)).toMatchObject({ claimed: 1, dead: 1, sent: 0 });
    expect(bodiesFor(iid)).toEqual([]);
    expect(await deliveryRows(h().deps, p)).toMatchObject([{ status: 'dead', last_error: UNDECIDED_REASON }]);

    await attribute(h(), p, iid);
    expect(await deliverAt(h().deps, p, destination)).toMatchObject({ claimed: 2, sent: 2 });

    const [install, signup] = bodiesFor(iid);
    expect([install?.event_type, signup?.event_type]).toEqual(['install', 'signup']);
    expect(signup).toMatchObject({ user_id: 'late-1', campaign_id: campaign.displayId, network_name: 'LINK' });
  });
});

describe('network details', () => {
  it('when a GOOGLE install was won by a click with gclid, gbraid, utm_source and an ad set, then google_campaign_details holds them, on install and signup', async () => {
    const { p, destination } = await hookedProject();
    const campaign = await campaignWithListings(h().deps, p, { adNetwork: 'GOOGLE' });
    const query = 'gclid=Cj0KCQtest123&gbraid=0AAAAA-gb&utm_source=youtube&adset_id=ag-7&adset_name=Brand%20terms';
    const iid = await clickedInstall(p, campaign, query);
    expect((await attribute(h(), p, iid))?.displayId).toBe(campaign.displayId);
    await trigger(p, iid, 'g-1');

    await deliverAt(h().deps, p, destination);

    const [install, signup] = bodiesFor(iid);
    const google = {
      gclid: 'Cj0KCQtest123',
      gbraid: '0AAAAA-gb',
      ga_source: 'youtube',
      ad_group_id: 'ag-7',
      ad_group_name: 'Brand terms',
    };
    expect(install).toMatchObject({
      network_name: 'GOOGLE',
      meta_campaign_details: null,
      google_campaign_details: google,
    });
    expect(signup).toMatchObject({ event_type: 'signup', google_campaign_details: google });
  });

  it('when a GOOGLE click carried no Google ids, then those keys are null and the ad group is still given', async () => {
    const { p, destination } = await hookedProject(['install']);
    const campaign = await campaignWithListings(h().deps, p, { adNetwork: 'GOOGLE' });
    const iid = await clickedInstall(p, campaign, 'adset_id=ag-8');
    await attribute(h(), p, iid);

    await deliverAt(h().deps, p, destination);

    expect(bodiesFor(iid)[0]?.google_campaign_details).toEqual({
      gclid: null,
      gbraid: null,
      ga_source: null,
      ad_group_id: 'ag-8',
      ad_group_name: '',
    });
  });

  it("when Meta's install referrer won, then meta_campaign_details holds every documented key from it", async () => {
    const { p, destination } = await hookedProject(['install']);
    const appKey = randomBytes(32).toString('hex');
    await setMetaReferrerKey(h().deps, p.project.id, { key: appKey });
    const campaign = await campaignWithListings(h().deps, p, { adNetwork: 'META' });
    await h().deps.sql`UPDATE campaigns SET meta_campaign_id = ${META_PLAINTEXT.campaign_id} WHERE id = ${campaign.id}`;
    const sealed = sealMeta(JSON.stringify(META_PLAINTEXT), appKey);
    const iid = await initAndroid(p, { meta_install_ref: metaInstallRef(sealed, 1) });
    expect(await attribute(h(), p, iid)).toMatchObject({ method: 'meta_referrer' });

    await deliverAt(h().deps, p, destination);

    expect(bodiesFor(iid)[0]).toMatchObject({
      network_name: 'META',
      google_campaign_details: null,
      meta_campaign_details: {
        ad_creative_id: META_PLAINTEXT.ad_id,
        ad_creative_name: '',
        ad_set_id: META_PLAINTEXT.adgroup_id,
        ad_set_name: META_PLAINTEXT.adgroup_name,
        campaign_group_id: META_PLAINTEXT.campaign_group_id,
        campaign_group_name: META_PLAINTEXT.campaign_group_name,
        account_id: META_PLAINTEXT.account_id,
        ad_objective_name: META_PLAINTEXT.ad_objective_name,
        is_instagram: false,
        publisher_platform: META_PLAINTEXT.publisher_platform,
        platform_position: META_PLAINTEXT.platform_position,
      },
    });
  });
});
