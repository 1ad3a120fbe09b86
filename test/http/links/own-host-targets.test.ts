// Targets the link handler would answer itself (README "Where a click goes"): a stored target on
// one of the project's link domains or on the service's own host (the PUBLIC_URL host, localhost,
// 127.0.0.1) is skipped in every chain, as an unsafe value is. An app's universal link on its link
// domain (`/promo/summer25?c=<id>`, answered as the link) stored as the campaign's deeplink was the
// web fallback: the visitor was sent back to the link, each round one more counted click.
import { describe, expect, it } from 'vitest';
import * as f from '../../support/factories.ts';
import { useHarness } from '../../support/harness.ts';
import { clickRowsOf, newLink, pageScriptTargets, visitLink } from '../../support/links.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

const UA = {
  macSafari:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  android:
    'Mozilla/5.0 (Linux; Android 13; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.144 Mobile Safari/537.36',
  iphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1.2 Mobile/15E148 Safari/604.1',
  windows:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
};

const APP_STORE = 'https://apps.apple.com/app/id123456789';
const SERVICE_HOST = 'attr.test'; // the harness's PUBLIC_URL host

/** Where a visit leads next: the 302's Location, or where the iPad page's script goes on a Mac. */
function next(res: { statusCode: number; headers: Record<string, unknown>; body: string }): string {
  return res.statusCode === 302 ? String(res.headers.location) : (pageScriptTargets(res.body, 0)[0] ?? '');
}

describe('the campaign’s own universal link as its web fallback', () => {
  it('when a Mac opens the link, then it is not sent back to the link (no loop, one click)', async () => {
    const id = `loop${Date.now().toString(36)}`;
    const domain = f.uniqueHost();
    // The universal link is the desktop chain's last web fallback (no desktop link, no website).
    const l = await newLink(
      h(),
      { custom_display_id: id, deeplink: `https://${domain}/promo/summer25?c=${id}` },
      { domainName: domain, platforms: ['IOS'] },
    );

    const first = await visitLink(h(), l.host, `/${id}`, UA.macSafari);
    const u = new URL(next(first));
    if (u.host === l.host) {
      // The Mac follows it: our link again.
      await visitLink(h(), u.host, `${u.pathname}${u.search}`, UA.macSafari);
    }

    // Was: the page's desktop target was the link itself; the Mac reloaded it forever (a script's
    // location.replace has no redirect limit), each round one more counted click.
    expect(u.href).toBe(APP_STORE);
    expect(first.statusCode).toBe(302);
    expect(await clickRowsOf(h(), l.p)).toHaveLength(1);
  });
});

describe('every chain skips a target the link handler answers', () => {
  it.each([
    [
      'Android: android_web_redirect on the service host',
      UA.android,
      { android_web_redirect: `https://${SERVICE_HOST}/x` },
      /^https:\/\/play\.google\.com\//,
    ],
    ['iOS: ios_web_redirect on localhost', UA.iphone, { ios_web_redirect: 'http://localhost:3000/promo' }, APP_STORE],
    [
      'desktop: link_for_desktop_users on 127.0.0.1',
      UA.windows,
      { link_for_desktop_users: 'http://127.0.0.1/d' },
      /^https:\/\/play\.google\.com\//,
    ],
  ])('when %s, then the chain moves on to the store', async (_n, ua, body, expected) => {
    const l = await newLink(h(), body);

    const res = await visitLink(h(), l.host, `/${l.displayId}`, ua);

    expect(res.statusCode).toBe(302);
    expect(String(res.headers.location)).toMatch(expected);
  });

  it('when the website is on another of the project’s link domains (upper case, trailing dot, port), then it is skipped too', async () => {
    const l = await newLink(h(), {}, { platforms: [] });
    const other = await f.domain(h().deps, l.p);
    await h().deps.sql`UPDATE campaigns SET website = ${`https://${other.name.toUpperCase()}.:8443/site`}
      WHERE project_id = ${l.p.project.id}`;

    const res = await visitLink(h(), l.host, `/${l.displayId}`, UA.windows);

    // Nothing else is stored: no usable target, the 404 page, nothing counted.
    expect(res.statusCode).toBe(404);
    expect(await clickRowsOf(h(), l.p)).toEqual([]);
  });
});
