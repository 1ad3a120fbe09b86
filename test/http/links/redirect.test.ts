// Campaign links (issue "Link clicks"; product notes "Link redirection"; catalog D7): both link
// forms on the campaign's domain and on the service host, the Location per platform, the Play
// referrer carrying the click id, the in-app intermediary page and its CSP, crawlers redirected but
// not counted, 404 pages, open-redirect payloads, and the click row in ClickHouse (TRUST_PROXY
// decides its ip). Each test makes its own project and domain and reads back only its own clicks.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { flushAllFacts } from '../../../src/domain/facts/flush-facts.ts';
import * as f from '../../support/factories.ts';
import { type Harness, newProject, type TestProject, useHarness } from '../../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

const UA = {
  android:
    'Mozilla/5.0 (Linux; Android 13; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.144 Mobile Safari/537.36',
  iphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1.2 Mobile/15E148 Safari/604.1',
  desktop:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
  instagramIos:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 307.0.0.34.111 (iPhone15,2; iOS 17_1; en_US; en; scale=3.00; 1179x2556; 532277029)',
  facebookAndroid:
    'Mozilla/5.0 (Linux; Android 12; SM-G991B Build/SP1A.210812.016; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/114.0.5735.196 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/421.0.0.33.47;]',
  googlebot:
    'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.71 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  facebookPreview: 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
};

const PLAY = 'https://play.google.com/store/apps/details?id=x.y';
const APP_STORE = 'https://apps.apple.com/app/id123456789';
const SERVICE_HOST = 'attr.test'; // the harness's PUBLIC_URL host

type Link = { p: TestProject; host: string; displayId: string; campaignId: number };

/** A project with a link domain, one listing per platform, and one campaign using both. */
async function link(
  body: Record<string, unknown> = {},
  opts: { timezone?: string; harness?: Harness } = {},
): Promise<Link> {
  const { app, deps } = opts.harness ?? h();
  const p = await newProject(deps, { timezone: opts.timezone });
  const d = await f.domain(deps, p);
  const ios = await f.storeListing(deps, p, 'IOS');
  const android = await f.storeListing(deps, p, 'ANDROID');
  const c = await f.campaign(app, p, { store_listing_ids: [ios.id, android.id], ...body });
  return { p, host: d.name, displayId: c.display_id, campaignId: c.id };
}

function visit(url: string, host: string, ua: string, headers: Record<string, string> = {}, harness = h()) {
  return harness.app.inject({ method: 'GET', url, headers: { host, 'user-agent': ua, ...headers } });
}

function clickIdIn(location: string | undefined): string | null {
  const ref = new URL(location ?? '').searchParams.get('referrer');
  return new URLSearchParams(ref ?? '').get('lr_click_id');
}

type ClickRow = Record<string, string | number>;

async function clicksOf(p: TestProject, harness = h()): Promise<ClickRow[]> {
  const { deps } = harness;
  await flushAllFacts(deps, ['clicks']);
  const rs = await deps.ch.query({
    query: 'SELECT * FROM clicks WHERE project_id = {p:String} ORDER BY ts, click_id',
    query_params: { p: p.project.id },
    format: 'JSONEachRow',
  });
  return rs.json<ClickRow>();
}

const uniqueId = () => `lnk_${randomUUID().replaceAll('-', '').slice(0, 20)}`;

describe('GET /?c=<display_id> and /<display_id>', () => {
  describe('302', () => {
    it('when Android opens either form on the campaign domain, then the Play listing with our referrer, no-store', async () => {
      const l = await link();
      for (const url of [`/?c=${l.displayId}`, `/${l.displayId}`]) {
        const res = await visit(url, l.host, UA.android);
        expect(res.statusCode).toBe(302);
        expect(res.headers.location).toMatch(/^https:\/\/play\.google\.com\/store\/apps\/details\?id=x\.y&referrer=/);
        expect(res.headers['cache-control']).toBe('no-store');
        expect(clickIdIn(res.headers.location)).toMatch(/^[A-Za-z0-9]{20}$/);
        expect(res.body).toBe('');
      }
    });

    it('when the Host header has a port and upper case, then the domain still matches', async () => {
      const l = await link();
      const res = await visit(`/${l.displayId}`, `${l.host.toUpperCase()}:8443`, UA.android);
      expect(res.statusCode).toBe(302);
    });

    it('when an iPhone opens the link, then the App Store listing as stored', async () => {
      const l = await link();
      const res = await visit(`/${l.displayId}`, l.host, UA.iphone);
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe(APP_STORE);
    });

    it('when a desktop opens the link, then link_for_desktop_users', async () => {
      const l = await link({ link_for_desktop_users: 'https://example.com/desktop' });
      const res = await visit(`/?c=${l.displayId}`, l.host, UA.desktop);
      expect(res.headers.location).toBe('https://example.com/desktop');
    });

    it('when the campaign has web redirects, then Android and iOS go to them', async () => {
      const l = await link({
        android_web_redirect: 'https://example.com/android',
        ios_web_redirect: 'https://example.com/ios',
      });
      expect((await visit(`/${l.displayId}`, l.host, UA.android)).headers.location).toBe('https://example.com/android');
      expect((await visit(`/${l.displayId}`, l.host, UA.iphone)).headers.location).toBe('https://example.com/ios');
    });

    it('when the campaign has no listing of its own, then the project listing is used', async () => {
      const { app, deps } = h();
      const p = await newProject(deps);
      const d = await f.domain(deps, p);
      await f.storeListing(deps, p, 'ANDROID');
      const c = await f.campaign(app, p);
      const res = await visit(`/${c.display_id}`, d.name, UA.android);
      expect(res.headers.location?.startsWith(`${PLAY}&referrer=lr_click_id%3D`)).toBe(true);
    });

    it('when either form is opened on the service host (and localhost), then the unique campaign redirects', async () => {
      const l = await link({ custom_display_id: uniqueId() });
      for (const host of [SERVICE_HOST, 'localhost:3000', '127.0.0.1']) {
        for (const url of [`/?c=${l.displayId}`, `/${l.displayId}`]) {
          const res = await visit(url, host, UA.iphone);
          expect(res.statusCode, `${host}${url}`).toBe(302);
          expect(res.headers.location).toBe(APP_STORE);
        }
      }
    });

    it('when /<id>/ (trailing slash) is opened on the campaign domain or the service host, then it redirects like /<id>', async () => {
      // The list's link filter reads https://<domain>/<id>/ as this campaign's link.
      const l = await link({ custom_display_id: uniqueId() });
      for (const host of [l.host, SERVICE_HOST]) {
        const res = await visit(`/${l.displayId}/`, host, UA.iphone);
        expect(res.statusCode, host).toBe(302);
        expect(res.headers.location).toBe(APP_STORE);
        expect(res.headers['cache-control']).toBe('no-store');
      }
      expect(await clicksOf(l.p)).toHaveLength(2);
    });

    it('when the campaign is inactive, then it still redirects and counts (documented decision)', async () => {
      const l = await link();
      const off = await h().app.inject({
        method: 'PATCH',
        url: `/api/v1/campaigns/${l.displayId}`,
        headers: l.p.headers,
        payload: { active: false },
      });
      expect(off.statusCode).toBe(200);
      const res = await visit(`/${l.displayId}`, l.host, UA.android);
      expect(res.statusCode).toBe(302);
      expect((await clicksOf(l.p)).map((c) => c.click_id)).toEqual([clickIdIn(res.headers.location)]);
    });
  });

  describe('404', () => {
    async function expectNotFoundPage(res: Awaited<ReturnType<typeof visit>>) {
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers.location).toBeUndefined();
      expect(res.body).toContain('Link not found');
    }

    it('when the host is no link domain and not the service host, then the 404 page', async () => {
      const l = await link();
      await expectNotFoundPage(await visit(`/${l.displayId}`, 'evil.example', UA.android));
      expect(await clicksOf(l.p)).toEqual([]);
    });

    it('when the display id is unknown, too long, or missing, then the 404 page', async () => {
      const l = await link();
      await expectNotFoundPage(await visit('/nope-nope', l.host, UA.android));
      await expectNotFoundPage(await visit(`/?c=${'x'.repeat(65)}`, l.host, UA.android));
      await expectNotFoundPage(await visit('/', l.host, UA.android));
      await expectNotFoundPage(await visit('/?c=', l.host, UA.android));
    });

    it('when the one path segment is bad %-encoding, then the 404 page (not JSON), and an API path stays JSON', async () => {
      const l = await link();
      for (const path of ['/%FF', '/%ED%A0%80', '/%E0%A4%A/', '/%FF?c=x']) {
        const res = await visit(path, l.host, UA.android);
        await expectNotFoundPage(res);
        expect(res.headers['cache-control']).toBe('no-store');
      }
      const api = await h().app.inject({ method: 'GET', url: '/api/v1/campaigns/%FF', headers: l.p.headers });
      expect(api.json()).toEqual({ msg: 'Invalid request parameters.', status: 400 });
    });

    it("when the display id is another project's, then the 404 page on this project's domain", async () => {
      const mine = await link();
      const theirs = await link();
      await expectNotFoundPage(await visit(`/${theirs.displayId}`, mine.host, UA.android));
    });

    it('when the campaign is deleted, then the 404 page and nothing is recorded', async () => {
      const l = await link();
      const del = await h().app.inject({
        method: 'DELETE',
        url: `/api/v1/campaigns/${l.displayId}`,
        headers: l.p.headers,
      });
      expect(del.statusCode).toBe(204);
      await expectNotFoundPage(await visit(`/${l.displayId}`, l.host, UA.android));
      expect(await clicksOf(l.p)).toEqual([]);
    });

    it('when two projects share the display id (an older database), then the service host answers 404 (their domains still work)', async () => {
      const id = uniqueId();
      const a = await link({ custom_display_id: id });
      const b = await link();
      // create-campaign refuses an id another project holds; a database from before may hold one.
      await h().deps.sql`UPDATE campaigns SET display_id = ${id} WHERE id = ${b.campaignId}`;
      await expectNotFoundPage(await visit(`/${id}`, SERVICE_HOST, UA.android));
      expect((await visit(`/${id}`, a.host, UA.android)).statusCode).toBe(302);
      expect((await visit(`/${id}`, b.host, UA.android)).statusCode).toBe(302);
    });

    it('when /<id>/ names no campaign, then the HTML 404 page, never JSON', async () => {
      const l = await link();
      await expectNotFoundPage(await visit('/nope-nope/', l.host, UA.android));
      await expectNotFoundPage(await visit('/nope-nope/', SERVICE_HOST, UA.android));
    });

    it('when no stored target fits the platform, then the 404 page and nothing is recorded', async () => {
      const { app, deps } = h();
      const p = await newProject(deps);
      const d = await f.domain(deps, p);
      const c = await f.campaign(app, p, { deeplink: 'myapp://only-the-app' });
      await expectNotFoundPage(await visit(`/${c.display_id}`, d.name, UA.android));
      expect(await clicksOf(p)).toEqual([]);
    });
  });

  describe('routes that must still win', () => {
    it('when /healthz, /openapi.json, /docs and /api/v1 are requested on a link domain, then they answer as before', async () => {
      const l = await link();
      expect((await visit('/healthz', l.host, UA.desktop)).json()).toEqual({ status: 'ok' });
      expect((await visit('/openapi.json', l.host, UA.desktop)).statusCode).toBe(200);
      expect((await visit('/docs', l.host, UA.desktop)).headers['content-type']).toContain('text/html');
      const api = await visit('/api/v1/campaigns', l.host, UA.desktop);
      expect(api.statusCode).toBe(401);
      expect(api.json()).toEqual({ msg: 'Unauthorized access.', status: 401 });
    });

    it('when a fixed route is requested with a trailing slash, then it stays the JSON Route not found., not a link', async () => {
      const l = await link();
      for (const url of ['/healthz/', '/readyz/', '/docs/', '/openapi.json/']) {
        const res = await visit(url, l.host, UA.android);
        expect(res.statusCode, url).toBe(404);
        expect(res.json()).toEqual({ msg: 'Route not found.', status: 404 });
      }
    });
  });
});

describe('open redirect (catalog D7)', () => {
  it.each([
    '?c={id}&redirect=https://evil.example',
    '?c={id}&url=https://evil.example&next=//evil.example&location=https://evil.example',
    '?c={id}&android_web_redirect=https://evil.example&store_url=https://evil.example',
    '?c={id}&referrer=https://evil.example&utm_source=x%26referrer%3Dhttps://evil.example',
    '?c={id}&utm_source=%0d%0aSet-Cookie:%20a=1',
    '?c={id}&x=%0d%0aSet-Cookie:%20a=1&url=%0d%0aLocation:%20https://evil.example',
  ])('when the query is %s, then Location is the stored target and no header is added', async (query) => {
    const l = await link();
    const clean = await visit(`/?c=${l.displayId}`, l.host, UA.iphone);
    const res = await visit(`/${query.replace('{id}', l.displayId)}`, l.host, UA.iphone);
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(APP_STORE);
    expect(Object.keys(res.headers).sort()).toEqual(Object.keys(clean.headers).sort());
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('when the Play referrer is built, then query values stay inside it, encoded, and the URL is unchanged otherwise', async () => {
    const l = await link();
    const res = await visit(
      `/${l.displayId}?utm_source=a%26referrer%3Devil&url=https://evil.example&utm_medium=%0d%0aSet-Cookie:x`,
      l.host,
      UA.android,
    );
    const loc = new URL(res.headers.location ?? '');
    expect(`${loc.origin}${loc.pathname}`).toBe('https://play.google.com/store/apps/details');
    expect([...loc.searchParams.keys()]).toEqual(['id', 'referrer']);
    const ref = new URLSearchParams(loc.searchParams.get('referrer') ?? '');
    expect(ref.get('utm_source')).toBe('a&referrer=evil');
    expect(ref.get('utm_medium')).toBe('Set-Cookie:x');
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('when CR/LF is smuggled into the display id, then 404 and no injected header', async () => {
    const l = await link();
    for (const url of [`/?c=${l.displayId}%0d%0aSet-Cookie:%20a=1`, `/${l.displayId}%0d%0aSet-Cookie:%20a=1`]) {
      const res = await visit(url, l.host, UA.iphone);
      expect(res.statusCode).toBe(404);
      expect(res.headers['set-cookie']).toBeUndefined();
    }
  });
});

describe('in-app browsers', () => {
  it('when Instagram on iOS opens the link, then the intermediary page tries the app, then the store after 300 ms', async () => {
    const l = await link({ deeplink: 'myapp://product/1?x=</script><script>alert(1)</script>' });
    const res = await visit(`/${l.displayId}`, l.host, UA.instagramIos);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(String(res.headers['content-security-policy']))?.[1];
    expect(nonce).toBeTruthy();
    expect(res.headers['content-security-policy']).toBe(
      `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    );
    expect(res.body).toContain(`<script nonce="${nonce}">`);
    expect(res.body).toContain(`<style nonce="${nonce}">`);
    // The deeplink sits in the script as escaped JSON: it cannot close the script element.
    expect(res.body).toContain(
      '"app":"myapp://product/1?x=\\u003c/script\\u003e\\u003cscript\\u003ealert(1)\\u003c/script\\u003e"',
    );
    expect(res.body.match(/<script/g)).toHaveLength(1);
    expect(res.body).toContain(`"store":"${APP_STORE}"`);
    expect(res.body).toContain('"platform":"IOS"');
    expect(res.body).toContain('"delayMs":300');
    expect(res.body).toContain(`<a href="${APP_STORE}">Continue</a>`);
    const [click] = await clicksOf(l.p);
    expect(click).toMatchObject({ in_app_browser: 'INSTAGRAM', platform: 'IOS', browser: 'Instagram' });
  });

  it('when Facebook on Android opens the link, then the page counts down 5 s to the Play listing with our referrer', async () => {
    const l = await link({ deeplink: 'myapp://home' });
    const res = await visit(`/${l.displayId}`, l.host, UA.facebookAndroid);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<span id="n">5</span>');
    expect(res.body).toContain('"app":"myapp://home"');
    expect(res.body).toContain('"platform":"ANDROID"');
    // In the script, the & of the query is escaped as \u0026 (JSON.parse reads it back).
    const store = JSON.parse(`"${/"store":"([^"]+)"/.exec(res.body)?.[1] ?? ''}"`) as string;
    expect(store.startsWith(`${PLAY}&referrer=lr_click_id%3D`)).toBe(true);
    const [click] = await clicksOf(l.p);
    expect(click?.in_app_browser).toBe('FACEBOOK');
    expect(clickIdIn(store)).toBe(click?.click_id);
    // In the href the & of the query is HTML-escaped.
    expect(res.body).toContain(`<a href="${store.replaceAll('&', '&amp;')}">Continue</a>`);
  });

  it('when the deeplink is a web URL, then the page does not try it as an app', async () => {
    const l = await link({ deeplink: 'https://example.com/deep' });
    const res = await visit(`/${l.displayId}`, l.host, UA.instagramIos);
    expect(res.body).toContain('"app":null');
  });
});

describe('crawlers and non-visits', () => {
  it.each([
    ['Googlebot', UA.googlebot],
    ['facebookexternalhit', UA.facebookPreview],
    ['curl', 'curl/8.4.0'],
  ])('when %s fetches the link, then it is redirected but not recorded', async (_name, ua) => {
    const l = await link({ link_for_desktop_users: 'https://example.com/desktop' });
    const res = await visit(`/${l.displayId}`, l.host, ua);
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBeTruthy();
    expect(await clicksOf(l.p)).toEqual([]);
  });

  it('when the link is requested with HEAD, then the same redirect and nothing recorded', async () => {
    const l = await link();
    const res = await h().app.inject({
      method: 'HEAD',
      url: `/${l.displayId}`,
      headers: { host: l.host, 'user-agent': UA.iphone },
    });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(APP_STORE);
    expect(await clicksOf(l.p)).toEqual([]);
  });
});

describe('the click row in ClickHouse', () => {
  it('when an Android phone clicks with ad parameters, then every column holds the click', async () => {
    const l = await link({ ad_network: 'tiktok ads' }, { timezone: 'Asia/Kolkata' });
    const gaid = '38400000-8CF0-11BD-B23E-10B96E40000D';
    const query = new URLSearchParams({
      c: l.displayId,
      gclid: 'g1',
      gbraid: 'gb1',
      wbraid: 'wb1',
      fbclid: 'fb1',
      ttclid: 'tt1',
      utm_source: 'tiktok',
      utm_medium: 'paid',
      utm_campaign: 'summer',
      utm_term: 'shoes',
      utm_content: 'v1',
      gaid,
      idfa: 'AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE',
      adset_id: 'as1',
      ad_set_name: 'Ad set one',
      ad_id: 'cr1',
      creative_name: 'Creative one',
      keyword_id: 'kw1',
      keyword: 'running shoes',
      network: 'ignored because the campaign has one',
      long: 'x'.repeat(600),
    });
    const before = Date.now();
    const res = await visit(`/?${query}`, l.host, UA.android, { referer: 'https://ads.example/page' });
    const after = Date.now();
    expect(res.statusCode).toBe(302);
    const rows = await clicksOf(l.p);
    expect(rows).toHaveLength(1);
    const row = rows[0] as ClickRow;
    const ts = Date.parse(`${String(row.ts).replace(' ', 'T')}Z`);
    expect(ts).toBeGreaterThanOrEqual(before);
    expect(ts).toBeLessThanOrEqual(after);
    const day = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Kolkata' }).format(new Date(ts));
    expect(row).toEqual({
      click_id: clickIdIn(res.headers.location),
      project_id: l.p.project.id,
      campaign_id: l.campaignId,
      display_id: l.displayId,
      ts: row.ts,
      project_tz: 'Asia/Kolkata',
      day,
      ip: '127.0.0.1',
      user_agent: UA.android,
      platform: 'ANDROID',
      os: 'Android',
      os_version: '13',
      device_vendor: 'Samsung',
      device_model: 'SM-S918B',
      browser: 'Chrome',
      in_app_browser: '',
      network: 'TIKTOK_ADS',
      ad_set_id: 'as1',
      ad_set_name: 'Ad set one',
      creative_id: 'cr1',
      creative_name: 'Creative one',
      keyword_id: 'kw1',
      keyword_name: 'running shoes',
      gclid: 'g1',
      gbraid: 'gb1',
      wbraid: 'wb1',
      fbclid: 'fb1',
      ttclid: 'tt1',
      utm_source: 'tiktok',
      utm_medium: 'paid',
      utm_campaign: 'summer',
      utm_term: 'shoes',
      utm_content: 'v1',
      ad_id: gaid.toLowerCase(),
      referrer: 'https://ads.example/page',
      // The link's own parameters (referral codes), the value cut like the others.
      link_params: `long=${'x'.repeat(512)}`,
    });
    const ref = new URLSearchParams(new URL(res.headers.location ?? '').searchParams.get('referrer') ?? '');
    expect(Object.fromEntries(ref)).toEqual({
      lr_click_id: row.click_id,
      utm_source: 'tiktok',
      utm_medium: 'paid',
      utm_campaign: 'summer',
      utm_term: 'shoes',
      utm_content: 'v1',
    });
  });

  it('when the campaign has no network, then the link network parameter is used, normalised; long values are capped', async () => {
    const l = await link();
    const q = new URLSearchParams({
      network: 'my affiliate',
      utm_source: 's'.repeat(700),
      idfa: 'ABCDEF01-2345-6789-ABCD-EF0123456789',
    });
    await visit(`/${l.displayId}?${q}`, l.host, UA.iphone, { referer: `https://r.example/${'r'.repeat(2000)}` });
    const [row] = await clicksOf(l.p);
    expect(row).toMatchObject({
      network: 'MY_AFFILIATE',
      platform: 'IOS',
      ad_id: 'abcdef01-2345-6789-abcd-ef0123456789',
    });
    expect(String(row?.utm_source)).toHaveLength(512);
    expect(String(row?.referrer)).toHaveLength(1024);
  });

  it('when the ad id is zeroed or a macro, and a value holds NUL, then the click is still stored, cleaned', async () => {
    const l = await link();
    await visit(`/${l.displayId}?gaid=00000000-0000-0000-0000-000000000000&utm_source=a%00b`, l.host, UA.android);
    await visit(`/${l.displayId}?idfa={idfa}`, l.host, UA.iphone);
    const rows = await clicksOf(l.p);
    expect(rows.map((r) => r.ad_id)).toEqual(['', '']);
    expect(rows.map((r) => r.utm_source)).toContain('ab');
  });
});

describe('TRUST_PROXY and the click ip', () => {
  describe('with TRUST_PROXY=127.0.0.1', () => {
    const proxied = useHarness({ env: { RATE_LIMITS_ENABLED: 'false', TRUST_PROXY: '127.0.0.1' } });

    it('when the trusted proxy sends X-Forwarded-For, then that address is stored', async () => {
      const l = await link({}, { harness: proxied() });
      await visit(`/${l.displayId}`, l.host, UA.android, { 'x-forwarded-for': '203.0.113.7' }, proxied());
      const [row] = await clicksOf(l.p, proxied());
      expect(row?.ip).toBe('203.0.113.7');
    });
  });

  describe('without TRUST_PROXY', () => {
    it('when a client sends X-Forwarded-For, then the socket address is stored', async () => {
      const l = await link();
      await visit(`/${l.displayId}`, l.host, UA.android, { 'x-forwarded-for': '203.0.113.7' });
      const [row] = await clicksOf(l.p);
      expect(row?.ip).toBe('127.0.0.1');
    });
  });
});
