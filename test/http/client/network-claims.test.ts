// Network claims (Apple Search Ads token, Meta install referrer) end to end, against the other
// signals and the campaign's state: init through the real route, Apple AdServices faked locally,
// the attribution job, and what attribution-data and attributed-users answer. README
// "Attribution": play_referrer > link > network claims > ad_id > fingerprint; a campaign deleted
// after the install keeps it (as its clicks do); the claim's own touch time (Apple clickDate, Meta
// actual_timestamp) is the install's store_click_at and its CTIT.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createCampaign } from '../../../src/domain/campaigns/create-campaign.ts';
import { deleteCampaign } from '../../../src/domain/campaigns/delete-campaign.ts';
import { editCampaign } from '../../../src/domain/campaigns/edit-campaign.ts';
import { resultByDevice } from '../../support/attribution-kit.ts';
import {
  attribute,
  attributionData,
  campaignWithListings,
  clickLink,
  flushFacts,
  IPHONE_UA,
  installRows,
  randomIp,
} from '../../support/client.ts';
import { startFakeApple, appleToken as token } from '../../support/fake-apple.ts';
import { newProject, type TestProject, useHarness } from '../../support/harness.ts';
import { androidInit, asaCampaign, iosInit, metaProject } from '../../support/network-claims.ts';
import { trigger } from '../../support/users.ts';

const apple = await startFakeApple();
afterAll(() => apple.close());

const h = useHarness({
  env: {
    RATE_LIMITS_ENABLED: 'false',
    APPLE_ADS_ATTRIBUTION_URL: apple.url,
    SECRETS_KEY: randomBytes(32).toString('hex'),
  },
});

const HOUR = 3_600_000;
const APPLE_ID = '542370539';

async function installRow(p: TestProject, iid: string) {
  const row = (await installRows(h().deps, p)).find((r) => r.install_instance_id === iid);
  if (!row) {
    throw new Error(`no install ${iid}`);
  }
  return row as typeof row & { created_at: Date; store_click_at: Date | null };
}

describe('the claimed campaign deleted or paused', () => {
  it('when the mapped ASA campaign is deleted after the install, before its decision, then the claim still decides it (as a click would)', async () => {
    const p = await newProject(h().deps);
    const c = await asaCampaign(h(), p);
    const iid = await iosInit(h(), p, token('200', APPLE_ID));
    await deleteCampaign(h().deps, p.project, c.displayId);

    const d = await attribute(h(), p, iid);

    expect({ method: d?.method, campaignId: d?.campaignId, displayId: d?.displayId }).toEqual({
      method: 'apple_search_ads',
      campaignId: c.id,
      displayId: c.displayId,
    });
  });

  it('when the mapped META campaign is deleted after the install, before its decision, then the claim still decides it', async () => {
    const { p, meta, ref } = await metaProject(h());
    const iid = await androidInit(h(), p, { meta_install_ref: ref() });
    await deleteCampaign(h().deps, p.project, meta.displayId);

    const d = await attribute(h(), p, iid);

    expect({ method: d?.method, campaignId: d?.campaignId }).toEqual({ method: 'meta_referrer', campaignId: meta.id });
  });

  it('when the mapped ASA campaign was deleted before the install, then there is no claim and the install is organic', async () => {
    const p = await newProject(h().deps);
    const c = await asaCampaign(h(), p);
    await deleteCampaign(h().deps, p.project, c.displayId);
    const iid = await iosInit(h(), p, token('200', APPLE_ID));

    expect((await attribute(h(), p, iid))?.method).toBe('organic');
  });

  it('when the mapped campaign is paused, then the claim still decides the install, with keyword and ad group in the answers', async () => {
    const p = await newProject(h().deps);
    const c = await asaCampaign(h(), p);
    await editCampaign(h().deps, p.project, { displayId: c.displayId, active: false });
    const idfa = randomUUID();
    const iid = await iosInit(h(), p, token('200', APPLE_ID), { deviceData: { idfa } });

    const d = await attribute(h(), p, iid);
    const data = (await attributionData(h(), p.token, iid)).json().data;
    const result = (await resultByDevice(h(), p, idfa)).json().data;

    expect(d).toMatchObject({ method: 'apple_search_ads', campaignId: c.id, keywordId: '87675432' });
    expect(data).toMatchObject({
      deeplink: 'myapp://asa',
      attribution_source: 'APPLE_SEARCH_ADS',
      campaign_data: { id: c.displayId, ad_network: 'APPLE_SEARCH_ADS', ad_set_id: '542317095' },
    });
    expect(result).toMatchObject({
      display_id: c.displayId,
      ad_network: 'APPLE_SEARCH_ADS',
      keyword_id: '87675432',
      ad_set_id: '542317095',
      ad_creative_id: '542317136',
      attribution_type: 'INORGANIC',
    });
  });

  it('when two projects map the same Apple campaign id, then each install goes to its own project campaign', async () => {
    const a = await newProject(h().deps);
    const b = await newProject(h().deps);
    const ca = await asaCampaign(h(), a);
    const cb = await asaCampaign(h(), b);
    const ia = await iosInit(h(), a, token('200', APPLE_ID));
    const ib = await iosInit(h(), b, token('200', APPLE_ID));

    const da = await attribute(h(), a, ia);
    const db = await attribute(h(), b, ib);

    expect([da?.campaignId, db?.campaignId]).toEqual([ca.id, cb.id]);
  });
});

describe("the claim's touch time", () => {
  it("when Apple's record carries the tap's clickDate, then attribution-data and attributed-users report it as store_click_at", async () => {
    const p = await newProject(h().deps);
    const c = await asaCampaign(h(), p);
    const tap = new Date(Math.floor((Date.now() - 3 * HOUR) / 60_000) * 60_000);
    const iid = await iosInit(h(), p, token('200', APPLE_ID, `${tap.toISOString().slice(0, 16)}Z`));
    const d = await attribute(h(), p, iid);
    const reg = await trigger(h(), p.token, iid, `asa-${randomUUID()}`, { platform: 'IOS' });
    expect(reg.statusCode, reg.body).toBe(200);

    const data = (await attributionData(h(), p.token, iid)).json().data;
    const users = await h().app.inject({
      method: 'GET',
      url: `/api/v1/attributed-users?display_id=${c.displayId}`,
      headers: p.headers,
    });
    const row = await installRow(p, iid);

    expect(data.campaign_data?.ad_network).toBe('APPLE_SEARCH_ADS');
    expect(data.campaign_data?.store_click_at).toBe(`${tap.toISOString().slice(0, 19)}Z`);
    expect(users.json().data.users[0]?.store_click_at).toBe(tap.toISOString());
    expect(d?.ctitMs).toBe(row.created_at.getTime() - tap.getTime());
  });

  it("when Meta's referrer carries actual_timestamp, then it is the install's store_click_at and CTIT", async () => {
    const { p, ref } = await metaProject(h());
    const touchSeconds = Math.floor((Date.now() - 2 * HOUR) / 1000);
    const iid = await androidInit(h(), p, { meta_install_ref: ref(touchSeconds) });

    const d = await attribute(h(), p, iid);
    const row = await installRow(p, iid);

    expect(d?.method).toBe('meta_referrer');
    expect(row.store_click_at).toEqual(new Date(touchSeconds * 1000));
    expect(d?.ctitMs).toBe(row.created_at.getTime() - touchSeconds * 1000);
  });

  it("when Meta's referrer has no actual_timestamp, then store_click_at stays null (never the install time)", async () => {
    const { p, ref } = await metaProject(h());
    const iid = await androidInit(h(), p, { meta_install_ref: ref(null) });

    const d = await attribute(h(), p, iid);

    expect({ method: d?.method, ctit: d?.ctitMs }).toEqual({ method: 'meta_referrer', ctit: -1 });
    expect((await installRow(p, iid)).store_click_at).toBeNull();
  });
});

describe('priority against the other signals', () => {
  it('when an iPhone has an ASA claim and an idfa click of another campaign, then the claim wins and the click is lost to it', async () => {
    const p = await newProject(h().deps);
    const asa = await asaCampaign(h(), p);
    const other = await campaignWithListings(h().deps, p, { name: 'TikTok', adNetwork: 'TIKTOK' });
    const idfa = randomUUID().toUpperCase();
    await clickLink(h(), other, { ip: randomIp(), userAgent: IPHONE_UA, query: `idfa=${idfa}&ttclid=tt1` });
    await flushFacts(h());
    const iid = await iosInit(h(), p, token('200', APPLE_ID), { deviceData: { idfa } });

    const d = await attribute(h(), p, iid);

    expect({ method: d?.method, campaignId: d?.campaignId, network: d?.network }).toEqual({
      method: 'apple_search_ads',
      campaignId: asa.id,
      network: 'APPLE_SEARCH_ADS',
    });
    expect(d?.candidates).toEqual([
      {
        method: 'apple_search_ads',
        click_id: '',
        campaign_id: asa.id,
        outcome: 'won',
        reason: 'claimed by APPLE_SEARCH_ADS',
      },
      {
        method: 'ad_id',
        click_id: expect.any(String),
        campaign_id: other.id,
        outcome: 'lost',
        reason: 'a more trusted method won (apple_search_ads)',
      },
    ]);
  });

  it('when init carries a campaign link and an ASA claim, then the link wins and the claim is noted lost', async () => {
    const p = await newProject(h().deps);
    const asa = await asaCampaign(h(), p);
    const linked = await createCampaign(h().deps, p.project, { name: 'Influencer' });
    const iid = await iosInit(h(), p, token('200', APPLE_ID), { link: `https://attr.test/${linked.displayId}` });

    const d = await attribute(h(), p, iid);

    expect({ method: d?.method, campaignId: d?.campaignId }).toEqual({ method: 'link', campaignId: linked.id });
    expect(d?.candidates).toContainEqual({
      method: 'apple_search_ads',
      click_id: '',
      campaign_id: asa.id,
      outcome: 'lost',
      reason: 'a more trusted method won (link)',
    });
  });

  it("when Apple answers attribution false (organic on Apple's side), then an idfa click of ours still decides", async () => {
    const p = await newProject(h().deps);
    await asaCampaign(h(), p);
    const ours = await campaignWithListings(h().deps, p, { name: 'Google', adNetwork: 'GOOGLE' });
    const idfa = randomUUID();
    await clickLink(h(), ours, { ip: randomIp(), userAgent: IPHONE_UA, query: `idfa=${idfa}&gbraid=gb-1` });
    const t = token('200');
    const iid = await iosInit(h(), p, t, { deviceData: { idfa } });

    const d = await attribute(h(), p, iid);

    expect(apple.requestsFor(t)).toHaveLength(1);
    expect(d).toMatchObject({ method: 'ad_id', campaignId: ours.id, networkDetails: { gbraid: 'gb-1' } });
  });

  it('when an Android install has a Meta referrer and an ad-id click of a TikTok campaign, then Meta wins and the click is lost to it', async () => {
    const { p, meta, ref } = await metaProject(h());
    const tiktok = await campaignWithListings(h().deps, p, { name: 'TikTok', adNetwork: 'TIKTOK' });
    const gaid = randomUUID();
    await clickLink(h(), tiktok, { ip: randomIp(), query: `gaid=${gaid}&ttclid=tt-2` });
    const iid = await androidInit(h(), p, { gaid, meta_install_ref: ref() });

    const d = await attribute(h(), p, iid);

    expect({ method: d?.method, campaignId: d?.campaignId, touch: d?.touchType }).toEqual({
      method: 'meta_referrer',
      campaignId: meta.id,
      touch: 'click',
    });
    expect(d?.candidates).toContainEqual(
      expect.objectContaining({
        method: 'ad_id',
        campaign_id: tiktok.id,
        outcome: 'lost',
        reason: 'a more trusted method won (meta_referrer)',
      }),
    );
  });

  it('when an Android install has a Meta referrer and opens a campaign link on init, then the link wins and Meta is noted lost', async () => {
    const { p, meta, ref } = await metaProject(h());
    const linked = await createCampaign(h().deps, p.project, { name: 'Influencer' });
    const iid = await androidInit(h(), p, { meta_install_ref: ref() }, `https://attr.test/${linked.displayId}`);

    const d = await attribute(h(), p, iid);

    expect({ method: d?.method, campaignId: d?.campaignId }).toEqual({ method: 'link', campaignId: linked.id });
    expect(d?.candidates).toContainEqual({
      method: 'meta_referrer',
      click_id: '',
      campaign_id: meta.id,
      outcome: 'lost',
      reason: 'a more trusted method won (link)',
    });
  });

  it('when the Play referrer carries our click id of a Google campaign and Meta also claims, then play_referrer wins with the gclid kept', async () => {
    const { p, meta, ref } = await metaProject(h());
    const google = await campaignWithListings(h().deps, p, { name: 'Google', adNetwork: 'GOOGLE' });
    const { clickId, referrer } = await clickLink(h(), google, { ip: randomIp(), query: 'gclid=Cj0-xyz&wbraid=wb-1' });
    const iid = await androidInit(h(), p, { install_ref: referrer, meta_install_ref: ref() });

    const d = await attribute(h(), p, iid);

    expect({ method: d?.method, campaignId: d?.campaignId, click: d?.click?.clickId }).toEqual({
      method: 'play_referrer',
      campaignId: google.id,
      click: clickId,
    });
    expect(d?.networkDetails).toEqual({ gclid: 'Cj0-xyz' });
    expect(d?.candidates).toContainEqual(
      expect.objectContaining({ method: 'meta_referrer', campaign_id: meta.id, outcome: 'lost' }),
    );
  });
});
