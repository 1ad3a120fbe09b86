// Candidates whose campaign was paused or deleted, through the real edit/delete endpoints, link
// handler, init, attribution job and client answers. README: inactive campaigns still redirect and
// count their clicks; a deleted campaign disappears from the API (its links answer 404) and
// get-attribution-result answers its installs ORGANIC; a click of a campaign deleted before the
// install is no candidate (`campaign deleted`), and neither is a campaign link naming it; deleted
// after the install, both still decide it.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  baseInstant,
  clickAt,
  decide,
  flushFacts,
  HOUR,
  initAt,
  SAMSUNG_DEVICE,
  SAMSUNG_UA,
} from '../../support/attribution-kit.ts';
import { campaignWithListings, post, randomIp } from '../../support/client.ts';
import { newProject, useHarness } from '../../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false', LOOKUP_CACHE_TTL_MS: '0' } });

async function project() {
  const p = await newProject(h().deps);
  const a = await campaignWithListings(h().deps, p, { name: 'A' });
  const b = await campaignWithListings(h().deps, p, { name: 'B' });
  return { p, a, b };
}

describe('campaign state at decision time', () => {
  it('when the clicked campaign was paused before the install, then the install is still attributed to it', async () => {
    const { p, a } = await project();
    const gaid = randomUUID();
    const t = baseInstant();
    await clickAt(h(), p, a.displayId, { ms: t - HOUR, ip: randomIp(), ua: SAMSUNG_UA, query: `gaid=${gaid}` });
    const edit = await h().app.inject({
      method: 'PATCH',
      url: `/api/v1/campaigns/${a.displayId}`,
      headers: p.headers,
      payload: { active: false },
    });
    expect(edit.statusCode, edit.body).toBe(200);
    const iid = await initAt(h(), p, { ms: t, ip: randomIp(), deviceData: { gaid } });

    expect(await decide(h(), p, iid)).toMatchObject({ method: 'ad_id', campaignId: a.id });
  });

  it('when init names a campaign deleted before the install by link, then the link is not used and the install falls to its click', async () => {
    const { p, a, b } = await project();
    const gaid = randomUUID();
    // Now, not a day ago: the deletion is stamped by Postgres's clock, and must come before the install.
    const t = Date.now() - 1000;
    await clickAt(h(), p, b.displayId, { ms: t - HOUR, ip: randomIp(), ua: SAMSUNG_UA, query: `gaid=${gaid}` });
    const del = await h().app.inject({
      method: 'DELETE',
      url: `/api/v1/campaigns/${a.displayId}`,
      headers: p.headers,
    });
    expect(del.statusCode, del.body).toBeLessThan(300);
    const iid = await initAt(h(), p, {
      ms: Date.now() + 1,
      ip: randomIp(),
      link: `https://attr.test/?c=${a.displayId}`,
      deviceData: { gaid },
    });

    expect(await decide(h(), p, iid)).toMatchObject({ method: 'ad_id', campaignId: b.id });
  });

  it("when the Play referrer's campaign was deleted before the install and a live campaign's click also matches, then the live campaign gets the install", async () => {
    const { p, a, b } = await project();
    const ip = randomIp();
    // Now, not a day ago: the deletion is stamped by Postgres's clock, and must come before the install.
    const t = Date.now() - 1000;
    const gone = await clickAt(h(), p, a.displayId, { ms: t - 2 * HOUR, ip: randomIp(), ua: SAMSUNG_UA });
    const live = await clickAt(h(), p, b.displayId, { ms: t - HOUR, ip, ua: SAMSUNG_UA });
    await flushFacts(h());
    const del = await h().app.inject({
      method: 'DELETE',
      url: `/api/v1/campaigns/${a.displayId}`,
      headers: p.headers,
    });
    expect(del.statusCode, del.body).toBeLessThan(300);
    const iid = await initAt(h(), p, {
      ms: Date.now() + 1,
      ip,
      deviceData: { ...SAMSUNG_DEVICE, install_ref: gone.referrer },
    });

    const d = await decide(h(), p, iid);
    const answer = await post(h(), 'attribution-data', {
      token: p.token,
      platform: 'ANDROID',
      install_instance_id: iid,
    });

    // Was: play_referrer to the deleted campaign A; the app was told ORGANIC and B's matching
    // click was noted "lost" to a campaign that no longer exists.
    expect({ method: d?.method, campaign: d?.campaignId, click: d?.click?.clickId }).toEqual({
      method: 'fingerprint',
      campaign: b.id,
      click: live.clickId,
    });
    expect(d?.candidates).toEqual([
      {
        method: 'play_referrer',
        click_id: gone.clickId,
        campaign_id: a.id,
        outcome: 'ineligible',
        reason: 'campaign deleted',
      },
      {
        method: 'fingerprint',
        click_id: live.clickId,
        campaign_id: b.id,
        outcome: 'won',
        reason: 'last eligible click',
      },
    ]);
    expect(answer.json().data.campaign_data).toMatchObject({ id: b.displayId });
  });

  it('when the clicked campaign is deleted after the install, before its decision, then the install is still attributed to it', async () => {
    const { p, a } = await project();
    const gaid = randomUUID();
    const t = baseInstant();
    const click = await clickAt(h(), p, a.displayId, {
      ms: t - HOUR,
      ip: randomIp(),
      ua: SAMSUNG_UA,
      query: `gaid=${gaid}`,
    });
    const iid = await initAt(h(), p, { ms: t, ip: randomIp(), deviceData: { gaid } });
    const del = await h().app.inject({ method: 'DELETE', url: `/api/v1/campaigns/${a.displayId}`, headers: p.headers });
    expect(del.statusCode, del.body).toBeLessThan(300);

    const d = await decide(h(), p, iid);

    expect(d).toMatchObject({ method: 'ad_id', campaignId: a.id });
    expect(d?.click?.clickId).toBe(click.clickId);
  });

  it('when the campaign of the link given on init is deleted after the install, before its decision, then the link still decides it', async () => {
    const { p, a, b } = await project();
    const gaid = randomUUID();
    const t = baseInstant();
    await clickAt(h(), p, b.displayId, { ms: t - HOUR, ip: randomIp(), ua: SAMSUNG_UA, query: `gaid=${gaid}` });
    const iid = await initAt(h(), p, {
      ms: t,
      ip: randomIp(),
      link: `https://attr.test/?c=${a.displayId}`,
      deviceData: { gaid },
    });
    const del = await h().app.inject({ method: 'DELETE', url: `/api/v1/campaigns/${a.displayId}`, headers: p.headers });
    expect(del.statusCode, del.body).toBeLessThan(300);

    const d = await decide(h(), p, iid);

    // Was: the link's campaign was read live only, so the install fell to B's less trusted ad-id click.
    expect({ method: d?.method, campaignId: d?.campaignId, displayId: d?.displayId }).toEqual({
      method: 'link',
      campaignId: a.id,
      displayId: a.displayId,
    });
  });
});
