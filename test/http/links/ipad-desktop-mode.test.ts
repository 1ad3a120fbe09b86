// iPads in their default desktop mode (README "Link handler", "Where a click goes"): iPadOS Safari,
// and the other browsers and web views of an iPad, send a Mac Safari agent ("Macintosh; Intel Mac OS
// X 10_15_7 … AppleWebKit/605.1.15"). When the campaign's iOS target (ios_web_redirect, else the App
// Store listing) differs from its desktop target, such an agent gets a small page whose script goes
// to the iOS target on a touch device (navigator.maxTouchPoints > 1: an iPad) and to the desktop
// target otherwise; without script, to the desktop target. The click is recorded once, DESKTOP with
// the model `Macintosh or iPad`. Chrome, Edge, Firefox on a Mac, other desktops, campaigns without a
// distinct iOS target, crawlers, prefetches and phones' in-app browsers keep their answers.
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { flushAllFacts } from '../../../src/domain/facts/flush-facts.ts';
import * as f from '../../support/factories.ts';
import { newProject, type TestProject, useHarness } from '../../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

const UA = {
  // iPadOS 17 Safari in its default desktop mode; a Mac's Safari on macOS 14 sends the very same.
  macSafari:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  macChrome:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  macEdge:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.67',
  macFirefox: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:125.0) Gecko/20100101 Firefox/125.0',
  // Safari on macOS 10.14: no iPadOS ever sent a Mac version before 10.15.
  oldMacSafari:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_14_6) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/14.1.2 Safari/605.1.15',
  windowsChrome:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  linuxFirefox: 'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0',
  applebot:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)',
  instagramIphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 307.0.0.34.111 (iPhone15,2; iOS 17_1; en_US; en; scale=3.00; 1179x2556; 532277029)',
};

const APP_STORE = 'https://apps.apple.com/app/id123456789';
const DESKTOP = 'https://example.com/desktop';

type Link = { p: TestProject; host: string; displayId: string };

/** A project with a link domain, the listings asked for, and one campaign using them. */
async function link(body: Record<string, unknown>, platforms: ('IOS' | 'ANDROID')[] = ['IOS', 'ANDROID']) {
  const { app, deps } = h();
  const p = await newProject(deps);
  const d = await f.domain(deps, p);
  const ids: string[] = [];
  for (const platform of platforms) {
    ids.push((await f.storeListing(deps, p, platform)).id);
  }
  const c = await f.campaign(app, p, { store_listing_ids: ids, ...body });
  return { p, host: d.name, displayId: c.display_id } satisfies Link;
}

function visit(l: Link, ua: string, o: { method?: 'GET' | 'HEAD'; headers?: Record<string, string> } = {}) {
  return h().app.inject({
    method: o.method ?? 'GET',
    url: `/${l.displayId}`,
    headers: { host: l.host, 'user-agent': ua, ...o.headers },
  });
}

async function clicksOf(p: TestProject): Promise<Record<string, string | number>[]> {
  await flushAllFacts(h().deps, ['clicks']);
  const rs = await h().deps.ch.query({
    query: 'SELECT * FROM clicks WHERE project_id = {p:String} ORDER BY ts, click_id',
    query_params: { p: p.project.id },
    format: 'JSONEachRow',
  });
  return rs.json();
}

/** The script's data: both targets, as the page's JSON holds them. */
function pageData(body: string): { ios: string; desktop: string } {
  return JSON.parse(/var d = (\{.*?\});/s.exec(body)?.[1] ?? '{}');
}

describe('a Mac Safari agent (maybe an iPad in desktop mode)', () => {
  describe('200: the iPad-or-desktop page', () => {
    it('when the campaign has an App Store listing and a desktop link, then a self-contained page picks either by touch points', async () => {
      const l = await link({ link_for_desktop_users: DESKTOP });

      const res = await visit(l, UA.macSafari);

      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers.location).toBeUndefined();
      const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(String(res.headers['content-security-policy']))?.[1];
      expect(nonce).toBeTruthy();
      expect(res.headers['content-security-policy']).toBe(
        `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
      );
      // Both branches: an iPad (touch points) goes to the App Store, anything else to the desktop link.
      expect(pageData(res.body)).toEqual({ ios: APP_STORE, desktop: DESKTOP });
      expect(res.body).toContain('var ipad = (navigator.maxTouchPoints || 0) > 1;');
      expect(res.body).toContain('window.location.replace(ipad ? d.ios : d.desktop);');
      // Without script: the desktop target, as the 302 was.
      expect(res.body).toContain(`<noscript><meta http-equiv="refresh" content="0;url=${DESKTOP}"></noscript>`);
      expect(res.body).toContain(`<a href="${DESKTOP}">Continue</a>`);
      // Nothing external: one inline script and one inline style, both under the nonce.
      expect(res.body.match(/<script/g)).toEqual([`<script`]);
      expect(res.body).toContain(`<script nonce="${nonce}">`);
      expect(res.body).toContain(`<style nonce="${nonce}">`);
      expect(res.body).not.toMatch(/\bsrc=|<link|@import|url\(/);
    });

    it.each([
      ['an iPad (5 touch points)', 5, APP_STORE],
      ['a Mac (no touch points)', 0, DESKTOP],
      ['a browser without maxTouchPoints', undefined, DESKTOP],
    ])(
      'when the page’s script runs on %s, then it replaces the location with that target',
      async (_d, touch, target) => {
        const l = await link({ link_for_desktop_users: DESKTOP });
        const res = await visit(l, UA.macSafari);
        const script = /<script nonce="[^"]+">([\s\S]*?)<\/script>/.exec(res.body)?.[1] ?? '';
        const went: string[] = [];

        runInNewContext(script, {
          navigator: touch === undefined ? {} : { maxTouchPoints: touch },
          window: { location: { replace: (u: string) => went.push(u) } },
        });

        expect(went).toEqual([target]);
      },
    );

    it('when the campaign has an ios_web_redirect, then it is the page’s iOS target', async () => {
      const l = await link({ link_for_desktop_users: DESKTOP, ios_web_redirect: 'https://example.com/ios' });

      const res = await visit(l, UA.macSafari);

      expect(res.statusCode).toBe(200);
      expect(pageData(res.body)).toEqual({ ios: 'https://example.com/ios', desktop: DESKTOP });
    });

    it('when the desktop target is the Play listing (no desktop link or website), then the page offers it with our referrer', async () => {
      const l = await link({ deeplink: 'myapp://home' });

      const res = await visit(l, UA.macSafari);

      expect(res.statusCode).toBe(200);
      const { ios, desktop } = pageData(res.body);
      expect(ios).toBe(APP_STORE);
      const [click] = await clicksOf(l.p);
      expect(new URLSearchParams(new URL(desktop).searchParams.get('referrer') ?? '').get('lr_click_id')).toBe(
        click?.click_id,
      );
      // The & of the query is HTML-escaped in the markup.
      expect(res.body).toContain(`<a href="${desktop.replaceAll('&', '&amp;')}">Continue</a>`);
    });

    it('when the page is answered, then the click is recorded once, DESKTOP with the model `Macintosh or iPad`', async () => {
      const l = await link({ link_for_desktop_users: DESKTOP });

      await visit(l, UA.macSafari);

      const clicks = await clicksOf(l.p);
      expect(clicks).toHaveLength(1);
      expect(clicks[0]).toMatchObject({
        platform: 'DESKTOP',
        os: 'Mac OS',
        os_version: '10.15.7',
        device_vendor: 'Apple',
        device_model: 'Macintosh or iPad',
        browser: 'Safari',
        in_app_browser: '',
        user_agent: UA.macSafari,
      });
    });

    it('when the link is requested with HEAD, then the same status and headers, no body, and nothing recorded', async () => {
      const l = await link({ link_for_desktop_users: DESKTOP });

      const res = await visit(l, UA.macSafari, { method: 'HEAD' });

      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(String(res.headers['content-security-policy'])).toMatch(/^default-src 'none'; script-src 'nonce-/);
      expect(res.body).toBe('');
      expect(await clicksOf(l.p)).toEqual([]);
    });
  });

  describe('302: the desktop target, as before', () => {
    it('when the campaign has no iOS target (no ios_web_redirect, no App Store listing), then a 302 to the desktop link', async () => {
      const l = await link({ link_for_desktop_users: DESKTOP }, ['ANDROID']);

      const res = await visit(l, UA.macSafari);

      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe(DESKTOP);
      expect(await clicksOf(l.p)).toEqual([expect.objectContaining({ device_model: 'Macintosh or iPad' })]);
    });

    it('when the desktop target is the App Store listing itself, then a 302 to it (nothing to choose)', async () => {
      const l = await link({ deeplink: 'myapp://home' }, ['IOS']);

      const res = await visit(l, UA.macSafari);

      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe(APP_STORE);
    });
  });
});

describe('agents that are no iPad keep the 302', () => {
  it.each([
    ['Chrome on a Mac', UA.macChrome, 'Macintosh'],
    ['Edge on a Mac', UA.macEdge, 'Macintosh'],
    ['Firefox on a Mac', UA.macFirefox, 'Macintosh'],
    ['Safari on macOS 10.14', UA.oldMacSafari, 'Macintosh'],
    ['Chrome on Windows', UA.windowsChrome, ''],
    ['Firefox on Linux', UA.linuxFirefox, ''],
  ])('when %s opens the link, then a 302 to the desktop link and a plain desktop click', async (_n, ua, model) => {
    const l = await link({ link_for_desktop_users: DESKTOP });

    const res = await visit(l, ua);

    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(DESKTOP);
    expect(await clicksOf(l.p)).toEqual([expect.objectContaining({ platform: 'DESKTOP', device_model: model })]);
  });

  it('when Applebot (a Mac Safari agent naming a bot) fetches the link, then a 302 and no click', async () => {
    const l = await link({ link_for_desktop_users: DESKTOP });

    const res = await visit(l, UA.applebot);

    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(DESKTOP);
    expect(await clicksOf(l.p)).toEqual([]);
  });

  it('when a Mac Safari agent prefetches the link, then 503 with no body and no click', async () => {
    const l = await link({ link_for_desktop_users: DESKTOP });

    const res = await visit(l, UA.macSafari, { headers: { 'sec-purpose': 'prefetch' } });

    expect(res.statusCode).toBe(503);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toBe('');
    expect(await clicksOf(l.p)).toEqual([]);
  });

  it('when Instagram on an iPhone opens the link, then the in-app page as before (not the iPad page)', async () => {
    const l = await link({ link_for_desktop_users: DESKTOP, deeplink: 'myapp://home' });

    const res = await visit(l, UA.instagramIphone);

    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('"platform":"IOS"');
    expect(res.body).toContain(`"store":"${APP_STORE}"`);
    expect(res.body).not.toContain('maxTouchPoints');
    expect(await clicksOf(l.p)).toEqual([expect.objectContaining({ platform: 'IOS', in_app_browser: 'INSTAGRAM' })]);
  });
});
