// Catalog §4d D7 (OWASP Unvalidated Redirects): create-campaign refuses every dangerous value of
// the catalog's list in each URL field, and a campaign link's Location is only ever a stored value
// (the Play listing gets only our referrer), whatever query, header or user agent the visitor sends;
// no header is injected and the in-app intermediary page reflects no request input.
// test/http/links/redirect.test.ts and create-campaign.test.ts hold the single cases; this file
// counts them over the full cross product.
import { beforeAll, describe, expect, it } from 'vitest';
import * as f from '../support/factories.ts';
import { newProject, type TestProject, useHarness } from '../support/harness.ts';
import { figure, Tally } from '../support/security-routes.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

const DANGEROUS = [
  'javascript:alert(1)',
  'JaVaScRiPt:alert(1)',
  ' javascript:alert(1)',
  '\tjavascript:alert(1)',
  'javascript://%0aalert(1)',
  'data:text/html,<script>alert(1)</script>',
  'data://text/html,x',
  'vbscript:msgbox(1)',
  'vbscript://x',
  'file:///etc/passwd',
  'file://server/share',
  'blob:https://evil.example/x',
  '//evil.example',
  '///evil.example',
  '\\\\evil.example',
  'https:\\\\evil.example',
  'https:evil.example',
  'https://good.example@evil.example',
  'https://user:pass@evil.example',
  'https://good.example%0d%0aSet-Cookie:%20a=1',
  'https://good.example/\r\nSet-Cookie: a=1',
  'https://good.example/\nLocation: https://evil.example',
  'https://good.example/\u0000x',
  'https://good.example/\u0085x',
  'https://good.example/ x',
  `https://good.example/${'a'.repeat(2100)}`,
  '',
  'evil.example',
];

const FIELDS = ['deeplink', 'link_for_desktop_users', 'android_web_redirect', 'ios_web_redirect'];

const UA = {
  android:
    'Mozilla/5.0 (Linux; Android 14; SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
  iphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  desktop:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
  instagramIos:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 307.0.0.34.111 (iPhone15,2; iOS 17_1; en_US; en; scale=3.00; 1179x2556; 532277029)',
  facebookAndroid:
    'Mozilla/5.0 (Linux; Android 12; SM-G991B Build/SP1A.210812.016; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/114.0.5735.196 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/421.0.0.33.47;]',
};

const APP_STORE = 'https://apps.apple.com/app/id123456789';
const DESKTOP = 'https://www.example.com/desktop';
const WEB_ANDROID = 'https://www.example.com/android';
const WEB_IOS = 'https://www.example.com/ios';

const EVIL_QUERIES = [
  'redirect=https://evil.example',
  'url=https://evil.example&next=//evil.example&location=https://evil.example&return_to=https://evil.example',
  'deeplink=javascript:alert(1)&android_web_redirect=https://evil.example&ios_web_redirect=https://evil.example',
  'link_for_desktop_users=https://evil.example&store_url=https://evil.example',
  'referrer=https://evil.example&utm_source=x%26referrer%3Dhttps://evil.example',
  'utm_source=%0d%0aSet-Cookie:%20a=1&utm_campaign=%0aLocation:%20https://evil.example',
  'utm_content=%3Cscript%3Ealert(1)%3C/script%3E&utm_term=%22%3E%3Cimg%20src=x%20onerror=alert(1)%3E',
  'id=evil.app&c=other',
];

const EVIL_HEADERS: Record<string, string>[] = [
  {},
  { referer: 'https://evil.example/', 'x-forwarded-host': 'evil.example', 'x-original-url': '/evil' },
  { 'x-forwarded-proto': 'javascript', 'x-rewrite-url': 'https://evil.example' },
];

let p: TestProject;
let host = '';
let stores = '';
let web = '';

beforeAll(async () => {
  const { app, deps } = h();
  p = await newProject(deps);
  host = (await f.domain(deps, p)).name;
  const ios = await f.storeListing(deps, p, 'IOS');
  const android = await f.storeListing(deps, p, 'ANDROID');
  stores = (
    await f.campaign(app, p, {
      name: 'Stores',
      store_listing_ids: [ios.id, android.id],
      deeplink: 'myapp://promo',
      link_for_desktop_users: DESKTOP,
    })
  ).display_id;
  web = (
    await f.campaign(app, p, {
      name: 'Web',
      store_listing_ids: [ios.id, android.id],
      android_web_redirect: WEB_ANDROID,
      ios_web_redirect: WEB_IOS,
      link_for_desktop_users: DESKTOP,
    })
  ).display_id;
});

/** The Location is a stored value; a Play listing may carry only our `referrer` besides its id. */
function isStoredTarget(location: string): boolean {
  if ([APP_STORE, DESKTOP, WEB_ANDROID, WEB_IOS].includes(location)) {
    return true;
  }
  try {
    const u = new URL(location);
    const keys = [...u.searchParams.keys()];
    return (
      `${u.origin}${u.pathname}` === 'https://play.google.com/store/apps/details' &&
      u.searchParams.get('id') === 'x.y' &&
      keys.length === 2 &&
      keys[1] === 'referrer'
    );
  } catch {
    return false;
  }
}

describe('D7 open redirect', () => {
  it('when create-campaign gets each dangerous value in each URL field, then every one is refused with 400', async () => {
    const tally = new Tally();
    for (const field of FIELDS) {
      for (const value of DANGEROUS) {
        const res = await h().app.inject({
          method: 'POST',
          url: '/api/v1/create-campaign',
          headers: p.headers,
          payload: { name: 'Dangerous', [field]: value },
        });
        tally.check(res.statusCode === 400, `${field}=${JSON.stringify(value.slice(0, 60))}: ${res.statusCode}`);
      }
    }
    figure('D7 create', { probes: tally.probes, dangerous_accepted: tally.bad });

    expect(tally.failures).toEqual([]);
  });

  it('when links are opened with hostile queries, headers and user agents, then Location is always stored and nothing is injected', async () => {
    const tally = new Tally();
    let fromInput = 0;
    for (const id of [stores, web]) {
      for (const query of EVIL_QUERIES) {
        for (const headers of EVIL_HEADERS) {
          for (const [name, ua] of Object.entries(UA)) {
            for (const url of [`/${id}?${query}`, `/?c=${id}&${query}`]) {
              const res = await h().app.inject({
                method: 'GET',
                url,
                headers: { host, 'user-agent': ua, ...headers },
              });
              const where = `${name} ${url}`;
              const loc = res.headers.location;
              if (res.statusCode === 302) {
                const ok = typeof loc === 'string' && isStoredTarget(loc);
                fromInput += ok ? 0 : 1;
                tally.check(ok, `${where}: Location ${String(loc)}`);
              } else {
                // The in-app intermediary page: its links are stored targets (query values only
                // inside our encoded referrer), and no request input is reflected raw.
                const hrefs = [...res.body.matchAll(/href="([^"]+)"/g)].map((m) =>
                  (m[1] ?? '').replaceAll('&amp;', '&'),
                );
                const ok =
                  res.statusCode === 200 &&
                  hrefs.length > 0 &&
                  hrefs.every(isStoredTarget) &&
                  !/\/\/evil\.example|<script>alert|onerror=|Set-Cookie:/i.test(res.body);
                fromInput += ok ? 0 : 1;
                tally.check(ok, `${where}: ${res.statusCode} page links ${hrefs.join(' ')}`);
              }
              const injected =
                res.headers['set-cookie'] !== undefined || Object.keys(res.headers).some((k) => k === 'a');
              tally.check(!injected, `${where}: injected header`);
            }
          }
        }
      }
    }
    figure('D7 redirect', { probes: tally.probes, locations_from_input: fromInput, failures: tally.bad });

    expect(tally.failures).toEqual([]);
  });
});
