// iPads in desktop mode beyond Safari's agent (README "Link handler", "Where a click goes"): Chrome
// for iOS' "Request Desktop Site" agent (Mac OS X 10_13_5 with CriOS/, the default on an iPad) is a
// possible iPad too; a campaign with an iOS target but no desktop target sends such an agent to the
// iOS target (302, counted) instead of 404; Instagram on an iPad sends an iPad agent (the in-app
// page); stored targets stay inert in the page; the Play target keeps our referrer.
import { describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';
import { clickRowsOf, ipadPageData, newLink, pageScriptTargets, visitLink } from '../../support/links.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

const UA = {
  // iPadOS 18 Safari in its default desktop mode (a Mac's Safari 18 sends the same).
  ipadSafari:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  // Chrome for iOS with "Request Desktop Site" (Chrome on iPad sends it by default), as the Chromium
  // blog "Changing the Chrome on iOS User Agent for Request Desktop Site" (M85+) documents it, and as
  // seen from Chrome 111 / 113 on iPads (browserslist-useragent-regexp#1478, go-useragent#25).
  ipadChromeDesktop:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_13_5) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/111 Version/11.1.1 Safari/605.1.15',
  macChrome:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  // Instagram on an iPad: its web view sends the iPad's mobile agent, not a Mac's.
  instagramIpad:
    'Mozilla/5.0 (iPad; CPU OS 17_7_11 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/21H461 Instagram 440.0.0.30.81 (iPad7,6; iPadOS 17_7_11; en_US; en; scale=2.00; 2048x1536; IABMV/1; 1025609183) Safari/604.1',
};

const APP_STORE = 'https://apps.apple.com/app/id123456789';
const DESKTOP = 'https://example.com/desktop';

describe('Chrome on an iPad (Request Desktop Site)', () => {
  it('when its agent (Mac OS X 10_13_5 with CriOS/) opens the link, then the iPad-or-desktop page and a `Macintosh or iPad` click', async () => {
    const l = await newLink(h(), { link_for_desktop_users: DESKTOP });

    const res = await visitLink(h(), l.host, `/${l.displayId}`, UA.ipadChromeDesktop);

    // Was: 302 to the desktop link and a plain `Macintosh` click (only 10_15 was read as an iPad).
    expect(res.statusCode).toBe(200);
    expect(ipadPageData(res.body)).toEqual({ ios: APP_STORE, desktop: DESKTOP });
    expect(await clickRowsOf(h(), l.p)).toEqual([
      expect.objectContaining({ platform: 'DESKTOP', os_version: '10.13.5', device_model: 'Macintosh or iPad' }),
    ]);
  });
});

describe('a campaign with an iOS target but no desktop target', () => {
  // ios_web_redirect and android_web_redirect only: no desktop link, no website, an app-scheme
  // deeplink, no store listings. The desktop chain is empty; the iOS chain is not.
  const body = {
    ios_web_redirect: 'https://example.com/ios',
    android_web_redirect: 'https://example.com/android',
    deeplink: 'myapp://home',
  };

  it.each([
    ['Safari on an iPad in desktop mode', UA.ipadSafari],
    ['Chrome on an iPad in desktop mode', UA.ipadChromeDesktop],
  ])('when %s opens the link, then a 302 to the iOS target and the click is counted', async (_n, ua) => {
    const l = await newLink(h(), body, { platforms: [] });

    const res = await visitLink(h(), l.host, `/${l.displayId}`, ua);

    // Was: 404 "Link not found" and no click: every iPad in its default mode met a dead link.
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('https://example.com/ios');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(await clickRowsOf(h(), l.p)).toEqual([expect.objectContaining({ device_model: 'Macintosh or iPad' })]);
  });

  it('when Chrome on a Mac (no iPad) opens the link, then still the 404 page and no click', async () => {
    const l = await newLink(h(), body, { platforms: [] });

    const res = await visitLink(h(), l.host, `/${l.displayId}`, UA.macChrome);

    expect(res.statusCode).toBe(404);
    expect(res.body).toContain('Link not found');
    expect(await clickRowsOf(h(), l.p)).toEqual([]);
  });
});

describe('other agents and stored values', () => {
  it('when Instagram on an iPad opens the link, then its iPad agent gets the iOS in-app page (not the iPad page) and an iPad click', async () => {
    const l = await newLink(h(), { link_for_desktop_users: DESKTOP, deeplink: 'myapp://home' });

    const res = await visitLink(h(), l.host, `/${l.displayId}`, UA.instagramIpad);

    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('"platform":"IOS"');
    expect(res.body).not.toContain('maxTouchPoints');
    expect(await clickRowsOf(h(), l.p)).toEqual([
      expect.objectContaining({ platform: 'IOS', device_model: 'iPad', in_app_browser: 'INSTAGRAM' }),
    ]);
  });

  it('when stored targets hold quotes, `</script>`, U+2028 and `&`, then they stay inert in the page; a javascript: ios_web_redirect is skipped', async () => {
    const l = await newLink(h(), { link_for_desktop_users: DESKTOP }, { platforms: ['IOS'] });
    const { sql } = h().deps;
    // Written straight to the rows: older rows or a future parser may let anything through.
    const nasty = `https://apps.apple.com/app/id1?x='"></script><script>alert(1)</script>&y=\u2028#'"<b>`;
    await sql`UPDATE store_listings SET store_url = ${nasty} WHERE project_id = ${l.p.project.id}`;
    await sql`UPDATE campaigns SET ios_web_redirect = 'javascript:alert(1)//https://x',
      link_for_desktop_users = ${`${DESKTOP}?a='"><b>&c=1`} WHERE project_id = ${l.p.project.id}`;

    const res = await visitLink(h(), l.host, `/${l.displayId}`, UA.ipadSafari);

    expect(res.statusCode).toBe(200);
    expect(res.body.match(/<script/gi)).toHaveLength(1);
    expect(res.body.match(/<\/script>/gi)).toHaveLength(1);
    expect(res.body).not.toContain('<b>');
    expect(res.body).not.toContain('\u2028');
    expect(res.body).not.toContain('javascript:');
    const { ios, desktop } = ipadPageData(res.body);
    expect(ios).toBe(new URL(nasty).href);
    expect(desktop).toBe(new URL(`${DESKTOP}?a='"><b>&c=1`).href);
    expect(pageScriptTargets(res.body, 5)).toEqual([new URL(nasty).href]);
    // The markup's copies are attribute-escaped.
    expect(res.body).toContain(`<a href="${desktop.replaceAll('&', '&amp;').replaceAll("'", '&#39;')}">Continue</a>`);
  });

  it('when the link carries UTM values and its own parameters, then they ride on the Play target (desktop side) only as our referrer, and the App Store target is the stored listing', async () => {
    const l = await newLink(h(), { deeplink: 'myapp://home' });

    const res = await visitLink(
      h(),
      l.host,
      `/${l.displayId}?utm_source=fb&utm_campaign=s1&referrer=user_1`,
      UA.ipadSafari,
    );

    expect(res.statusCode).toBe(200);
    const { ios, desktop } = ipadPageData(res.body);
    expect(ios).toBe(APP_STORE);
    const ref = new URLSearchParams(new URL(desktop).searchParams.get('referrer') ?? '');
    expect(ref.get('utm_source')).toBe('fb');
    expect(ref.get('utm_campaign')).toBe('s1');
    const [click] = await clickRowsOf(h(), l.p);
    expect(ref.get('lr_click_id')).toBe(click?.click_id);
    expect(click?.link_params).toBe('referrer=user_1');
  });
});
