// Referral codes (product notes "Referral codes", features/referral-codes.mdx: "query params on the
// subdomain link are returned inside the `deeplink` URL", e.g. get.yourdomain.com?referrer=user_123).
// A campaign link's parameters that the service does not read itself are kept on the click
// (ClickHouse clicks.link_params), carried by the decision to the install (installs.link_params) and
// appended to the campaign deeplink by attribution-data (and its 24 h cache) and
// get-attribution-result. Ad parameters are never appended; the deeplink's own query and fragment
// are kept and win on a shared name; beyond 20 parameters or 1,000 characters they are dropped and
// the redirect still happens. Each test makes its own project and reads back only its own rows.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { CreateCampaignInput } from '../../../src/domain/campaigns/create-campaign.ts';
import { attributionCacheKey } from '../../../src/domain/identity/read-attribution.ts';
import {
  attribute,
  attributionData,
  campaignWithListings,
  clickLink,
  flushFacts,
  init,
  installRows,
  post,
  randomIp,
  useClientHarness,
} from '../../support/client.ts';
import { newProject, type TestProject } from '../../support/harness.ts';

const h = useClientHarness();

type Attributed = { p: TestProject; iid: string; gaid: string; clickId: string };

/**
 * A campaign, a click on its link with `query`, an Android install from Play carrying that click's
 * referrer, decided. `flush: false` leaves the click in the outbox (not yet in ClickHouse).
 */
async function installFromLink(
  query: string,
  campaign: Partial<CreateCampaignInput> = {},
  opts: { flush?: boolean } = {},
): Promise<Attributed> {
  const { deps } = h();
  const p = await newProject(deps);
  const c = await campaignWithListings(deps, p, campaign);
  const ip = randomIp();
  const { clickId, referrer } = await clickLink(h(), c, { ip, query });
  if (opts.flush !== false) {
    await flushFacts(h());
  }
  const iid = randomUUID();
  const gaid = randomUUID();
  const res = await init(h(), p.token, { install_instance_id: iid, device_data: { install_ref: referrer, gaid } }, ip);
  expect(res.statusCode).toBe(202);
  const decision = await attribute(h(), p, iid);
  expect(decision).toMatchObject({ method: 'play_referrer', click: { clickId } });
  return { p, iid, gaid, clickId };
}

async function deeplinkOf(a: Attributed): Promise<string | null> {
  const res = await attributionData(h(), a.p.token, a.iid);
  expect(res.statusCode).toBe(200);
  return res.json().data.deeplink;
}

async function resultDeeplinkOf(a: Attributed): Promise<string | null> {
  const res = await h().app.inject({
    method: 'GET',
    url: `/api/v1/get-attribution-result?device_identifier=${a.gaid}`,
    headers: a.p.headers,
  });
  expect(res.statusCode).toBe(200);
  return res.json().data.deeplink;
}

async function clickLinkParams(a: Attributed): Promise<string> {
  await flushFacts(h());
  const rs = await h().deps.ch.query({
    query: 'SELECT link_params FROM clicks WHERE project_id = {p:String} AND click_id = {c:String}',
    query_params: { p: a.p.project.id, c: a.clickId },
    format: 'JSONEachRow',
  });
  const rows = await rs.json<{ link_params: string }>();
  expect(rows).toHaveLength(1);
  return rows[0]?.link_params ?? '';
}

const installLinkParams = async (a: Attributed) => (await installRows(h().deps, a.p))[0]?.link_params;

describe('referral parameters on a campaign link', () => {
  it('when the link carries referral and ad parameters, then attribution-data and get-attribution-result return only the referral ones inside deeplink', async () => {
    const query =
      'referrer=user_123&gclid=g1&campaign=summer2024&utm_source=push&adset_id=as1&ad_name=Creative&network=meta' +
      `&gaid=${randomUUID()}&lr_click_id=forged&GCLID=upper&keyword=shoes`;

    const a = await installFromLink(query);

    const expected = 'myapp://promo/spring?referrer=user_123&campaign=summer2024';
    expect(await deeplinkOf(a)).toBe(expected);
    expect(await resultDeeplinkOf(a)).toBe(expected);
    expect(await installLinkParams(a)).toBe('referrer=user_123&campaign=summer2024');
    expect(await clickLinkParams(a)).toBe('referrer=user_123&campaign=summer2024');
  });

  it('when the answer is cached, then the cached attribution-data answer carries the parameters', async () => {
    const a = await installFromLink('referrer=user_7');
    expect(await deeplinkOf(a)).toBe('myapp://promo/spring?referrer=user_7');

    const cached = await h().deps.cache.get(attributionCacheKey(a.p.project.id, a.iid));
    // The install's row no longer has them: the second answer can only come from the cache.
    await h().deps.sql`UPDATE installs SET link_params = '' WHERE project_id = ${a.p.project.id}`;

    expect(JSON.parse(cached ?? '{}').deeplink).toBe('myapp://promo/spring?referrer=user_7');
    expect(await deeplinkOf(a)).toBe('myapp://promo/spring?referrer=user_7');
  });

  it("when the deeplink has its own query and fragment, then they are kept, the parameters go before the fragment, and a name it has keeps the deeplink's value", async () => {
    const deeplink = 'myapp://promo/spring?screen=sale&referrer=campaign#top';
    const query = `referrer=user_9&name=${encodeURIComponent('Ann Lee & co')}&emoji=${encodeURIComponent('😀')}&tag=a&tag=b`;

    const a = await installFromLink(query, { deeplink });

    const expected =
      'myapp://promo/spring?screen=sale&referrer=campaign&name=Ann%20Lee%20%26%20co&emoji=%F0%9F%98%80&tag=a#top';
    expect(await deeplinkOf(a)).toBe(expected);
    expect(await resultDeeplinkOf(a)).toBe(expected);
  });

  it('when the deeplink is a web URL, then the parameters are appended to its query', async () => {
    const a = await installFromLink('ref=abc', { deeplink: 'https://shop.example.com/p/42?lang=en' });

    expect(await deeplinkOf(a)).toBe('https://shop.example.com/p/42?lang=en&ref=abc');
  });

  it('when the link carries more than 20 parameters, then those beyond the 20th are dropped and the redirect still happens', async () => {
    const many = Array.from({ length: 25 }, (_, i) => `p${i}=v${i}`).join('&');

    // installFromLink asserts the 302 (clickLink) and that the click won the install.
    const a = await installFromLink(many);

    const params = new URL(String(await deeplinkOf(a))).searchParams;
    expect([...params.keys()]).toEqual(Array.from({ length: 20 }, (_, i) => `p${i}`));
    expect(params.get('p19')).toBe('v19');
    expect(await clickLinkParams(a)).toBe(Array.from({ length: 20 }, (_, i) => `p${i}=v${i}`).join('&'));
  });

  it('when the parameters would pass 1,000 characters, then a value is cut at 512 characters and those that do not fit are dropped, in link order', async () => {
    const v = 'y'.repeat(400);

    const a = await installFromLink(`long=${'z'.repeat(600)}&a=${v}&b=${v}&d=short`);

    const stored = await clickLinkParams(a);
    expect(stored).toBe(`long=${'z'.repeat(512)}&a=${v}&d=short`);
    expect(stored.length).toBeLessThanOrEqual(1000);
    expect(await deeplinkOf(a)).toBe(`myapp://promo/spring?${stored}`);
  });

  it('when the link has no other parameters, then the deeplink is returned unchanged', async () => {
    const a = await installFromLink('network=meta&adset_id=as1&utm_campaign=spring');

    expect(await deeplinkOf(a)).toBe('myapp://promo/spring');
    expect(await resultDeeplinkOf(a)).toBe('myapp://promo/spring');
    expect(await installLinkParams(a)).toBe('');
    expect(await clickLinkParams(a)).toBe('');
  });

  it('when the campaign has no deeplink, then deeplink stays null although the link had parameters', async () => {
    const a = await installFromLink('referrer=user_1', { deeplink: undefined });

    expect(await deeplinkOf(a)).toBeNull();
    expect(await resultDeeplinkOf(a)).toBeNull();
    expect(await installLinkParams(a)).toBe('referrer=user_1');
  });

  it('when the install is decided while its click is still in the outbox, then the parameters come from the outbox row', async () => {
    const a = await installFromLink('referrer=user_42', {}, { flush: false });

    expect(await deeplinkOf(a)).toBe('myapp://promo/spring?referrer=user_42');
    expect(await clickLinkParams(a)).toBe('referrer=user_42');
  });

  it('when the app gives the campaign link on init and the link decides, then its parameters are returned inside deeplink', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const c = await campaignWithListings(deps, p);
    const iid = randomUUID();

    await init(h(), p.token, {
      install_instance_id: iid,
      link: `https://attr.test/${c.displayId}?referrer=user_5&gclid=g`,
    });
    expect(await attribute(h(), p, iid)).toMatchObject({ method: 'link', campaignId: c.id });

    const res = await attributionData(h(), p.token, iid);
    expect(res.json().data.deeplink).toBe('myapp://promo/spring?referrer=user_5');
  });

  it('when the attributed install signs up, then trigger returns the deeplink with the parameters', async () => {
    const a = await installFromLink('referrer=user_7');

    const res = await post(h(), 'trigger', {
      token: a.p.token,
      platform: 'ANDROID',
      install_instance_id: a.iid,
      user_data: { id: `u-${a.iid}` },
      data: { device_data: {} },
    });

    expect(res.json().data).toEqual({ deeplink: 'myapp://promo/spring?referrer=user_7', trigger: true });
  });

  it('when an in-app browser opens the link, then the page opens the app with the parameters on its deeplink', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const c = await campaignWithListings(deps, p);
    const instagram =
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 307.0.0.34.111 (iPhone15,2; iOS 17_1; en_US; en; scale=3.00; 1179x2556; 532277029)';

    const res = await h().app.inject({
      method: 'GET',
      url: `/${c.displayId}?referrer=user_9&fbclid=abc`,
      headers: { host: 'attr.test', 'user-agent': instagram },
    });

    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('"app":"myapp://promo/spring?referrer=user_9"');
  });

  // real-clients §4.10: apps route on the deeplink handle-deeplink returns (found by the
  // real-clients hunt: it returned the campaign's deeplink without the link's parameters).
  it('when an attributed app is opened by a referral link, then handle-deeplink returns the deeplink with its parameters', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const c = await campaignWithListings(deps, p);
    const iid = randomUUID();
    await init(h(), p.token, { install_instance_id: iid });
    await attribute(h(), p, iid);

    const res = await post(h(), 'handle-deeplink', {
      token: p.token,
      platform: 'ANDROID',
      install_instance_id: iid,
      deeplink_url: `https://attr.test/?c=${c.displayId}&ref=ABC123`,
    });

    expect(res.json().data).toMatchObject({ deeplink: 'myapp://promo/spring?ref=ABC123', is_linkrunner: true });
  });

  it('when a pending install reports a referral link, then handle-deeplink and the later attribution-data return the same deeplink', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const c = await campaignWithListings(deps, p);
    const iid = randomUUID();
    await init(h(), p.token, { install_instance_id: iid });

    const opened = await post(h(), 'handle-deeplink', {
      token: p.token,
      platform: 'ANDROID',
      install_instance_id: iid,
      deeplink_url: `https://attr.test/${c.displayId}?ref=ABC123`,
    });
    await attribute(h(), p, iid);

    expect(opened.json().data).toMatchObject({ deeplink: 'myapp://promo/spring?ref=ABC123', processing: true });
    expect((await attributionData(h(), p.token, iid)).json().data.deeplink).toBe('myapp://promo/spring?ref=ABC123');
  });
});
