// The shapes a campaign link arrives in and the hosts it arrives on. README "Link handler" (Host
// without port or case; a trailing dot; `?c=` on a deeper path), "Attribution" (`link`: "A link is
// read as the link handler reads it"), product notes "Deep linking" (a non-short link is the
// deeplink's host and path plus `?c=<id>`; customer subdomains; the verification files on each
// link domain). A deeper path is answered only where no route matched: the service's own routes
// keep their answers whatever their query.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { displayIdFromLink } from '../../../src/domain/campaigns/parse-link.ts';
import { updateWellKnown } from '../../../src/store/postgres/well-known.ts';
import { useHarness } from '../../support/harness.ts';
import { clicksOf, LINK_UA, newLink, PLAY_WITH_REFERRER as PLAY, visitLink } from '../../support/links.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

const link = (domainName?: string) => newLink(h(), { deeplink: 'https://shop.example.com/promo' }, { domainName });
const get = (url: string, host: string, headers: Record<string, string> = {}) =>
  visitLink(h(), host, url, LINK_UA.chromeAndroid, headers);

describe('?c= on a deeper path', () => {
  it('when /promo/summer25?c=<id> is opened on the link domain, then it redirects like /?c=<id> and counts, as attribution reads it', async () => {
    const l = await link();
    const url = `/promo/summer25?c=${l.displayId}&ref=abc`;

    const res = await get(url, l.host);

    // The attribution side (init `link`, handle-deeplink) reads this URL as the campaign's link…
    expect(await displayIdFromLink(h().deps, l.p.project.id, `https://${l.host}${url}`)).toBe(l.displayId);
    // …and a visitor without the app, sent to the browser by the universal link, is redirected.
    expect(res.statusCode).toBe(302);
    expect(res.headers['content-type'] ?? '').not.toContain('application/json');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.location).toMatch(PLAY);
    expect((await clicksOf(h(), l.p)).map((c) => c.link_params)).toEqual(['ref=abc']);
  });

  it('when the deeper path has a trailing slash or is asked with HEAD, then the same redirect; HEAD is not counted', async () => {
    const l = await link();
    expect((await get(`/a/b/?c=${l.displayId}`, l.host)).headers.location).toMatch(PLAY);

    const head = await h().app.inject({
      method: 'HEAD',
      url: `/promo/summer25?c=${l.displayId}`,
      headers: { host: l.host, 'user-agent': LINK_UA.chromeAndroid },
    });

    expect(head.statusCode).toBe(302);
    expect(head.headers.location).toMatch(PLAY);
    expect(await clicksOf(h(), l.p)).toHaveLength(1);
  });

  it('when ?c= names no campaign of the host, then the HTML 404 page of a link', async () => {
    const l = await link();
    const cases: [url: string, host: string][] = [
      ['/promo/summer25?c=nope-nope', l.host],
      [`/promo/summer25?c=${l.displayId}`, 'unknown.example'],
    ];
    for (const [url, host] of cases) {
      const res = await get(url, host);
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('Link not found');
    }
    expect(await clicksOf(h(), l.p)).toEqual([]);
  });

  it('when a deeper path has no ?c=, an empty one, or is POSTed, then the JSON Route not found. as before', async () => {
    const l = await link();
    for (const url of ['/promo/summer25', '/promo/summer25?c=', `/promo/summer25?ref=${l.displayId}`]) {
      const res = await get(url, l.host);
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toEqual({ msg: 'Route not found.', status: 404 });
    }
    const post = await h().app.inject({
      method: 'POST',
      url: `/promo/summer25?c=${l.displayId}`,
      headers: { host: l.host },
    });
    expect(post.json()).toEqual({ msg: 'Route not found.', status: 404 });
  });

  it("when the service's own paths carry ?c=, then they keep their answers (no route is shadowed)", async () => {
    const l = await link();
    const c = `c=${l.displayId}`;
    const notFound = [
      `/api/v1/nope/x?${c}`,
      `/API/v1/nope?${c}`,
      `/api/client/init?${c}`,
      `/.well-known/other/file?${c}`,
      `/mcp/token/x?${c}`,
      `/webhook/revenuecat?${c}`,
      `/docs/x/y?${c}`,
      `/healthz/x?${c}`,
    ];
    for (const url of notFound) {
      const res = await get(url, l.host);
      expect(res.statusCode, url).toBe(404);
      expect(res.json(), url).toEqual({ msg: 'Route not found.', status: 404 });
    }
    const api = await get(`/api/v1/campaigns?${c}`, l.host);
    expect(api.json()).toEqual({ msg: 'Unauthorized access.', status: 401 });
    const wellKnown = await get(`/.well-known/assetlinks.json?${c}`, l.host);
    expect(wellKnown.statusCode).toBe(404);
    expect(wellKnown.body).toBe('{}');
    expect(await clicksOf(h(), l.p)).toEqual([]);
  });
});

describe('customer domains', () => {
  it('when the Host header has a trailing dot, upper case and a port, then the link still opens', async () => {
    const l = await link();
    for (const host of [`${l.host}.`, `${l.host.toUpperCase()}.:8443`]) {
      const res = await get(`/?c=${l.displayId}`, host);
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toMatch(PLAY);
    }
  });

  it('when the domain was added as Unicode (IDN), then the punycode Host a browser sends opens the link', async () => {
    const l = await link(`bücher-${randomUUID().slice(0, 8)}.example.com`);
    expect(l.host).toMatch(/^xn--/);

    const res = await get(`/${l.displayId}`, l.host);

    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toMatch(PLAY);
  });

  it('when the verification files are fetched with a trailing dot, upper case and a port, then the project file is served', async () => {
    const l = await link();
    const aasa = { applinks: { details: [{ appIDs: ['TEAM.x.y'], components: [{ '/': '/*' }] }] } };
    await updateWellKnown(h().deps.sql, l.p.project.id, { appleAppSiteAssociation: aasa });
    for (const host of [`${l.host}.`, `${l.host.toUpperCase()}:443`]) {
      const res = await h().app.inject({
        method: 'GET',
        url: '/.well-known/apple-app-site-association',
        headers: { host },
      });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toContain('application/json');
      expect(res.json()).toEqual(aasa);
    }
  });

  it("when X-Forwarded-Host names another project's domain and no proxy is trusted, then the Host header decides", async () => {
    const mine = await link();
    const theirs = await link();
    const res = await get(`/${mine.displayId}`, mine.host, { 'x-forwarded-host': theirs.host });
    expect(res.statusCode).toBe(302);
    const other = await get(`/${theirs.displayId}`, mine.host, { 'x-forwarded-host': theirs.host });
    expect(other.statusCode).toBe(404);
  });
});
