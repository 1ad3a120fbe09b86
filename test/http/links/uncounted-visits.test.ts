// Visits of a campaign link that are no person tapping it write no click (README "Link handler":
// crawlers and prefetches are not counted). Prefetches announce themselves by header, with the
// visitor's own agent: Meta's in-app browsers prefetch an ad's link when the ad is shown
// (`X-Purpose: preview`), Chrome's speculation rules send `Sec-Purpose: prefetch`, older browsers
// `Purpose: prefetch` / `X-Moz: prefetch`. They get 503 with no-store: Chrome keeps a prefetch only
// when it answers 2xx (after redirects) and never stores an error, so the tap reaches us and is
// counted once. Google's and Meta's documented fetchers whose agents name no "bot/" token are
// crawlers too. Each test makes its own project and reads back only its own clicks.
import { describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';
import { clicksOf, newLink, type TestLink, LINK_UA as UA, visitLink } from '../../support/links.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

const link = () => newLink(h(), { deeplink: 'myapp://promo', link_for_desktop_users: 'https://example.com/desktop' });
const visit = (l: TestLink, ua: string, headers: Record<string, string> = {}) =>
  visitLink(h(), l.host, `/${l.displayId}`, ua, headers);
const clickCount = async (l: TestLink) => (await clicksOf(h(), l.p)).length;

const PREFETCHES: [name: string, ua: string, headers: Record<string, string>][] = [
  [
    "Meta's in-app browser prefetch of an ad link (X-Purpose: preview)",
    UA.facebookAndroid,
    { 'x-purpose': 'preview', 'x-fb-http-engine': 'Liger' },
  ],
  ["Instagram's prefetch on iOS (X-Purpose: preview)", UA.instagramIos, { 'x-purpose': 'preview' }],
  ["Chrome's speculation-rules prefetch (Sec-Purpose: prefetch)", UA.chromeAndroid, { 'sec-purpose': 'prefetch' }],
  ["Chrome's prerender (Sec-Purpose: prefetch;prerender)", UA.chromeAndroid, { 'sec-purpose': 'prefetch;prerender' }],
  ['a legacy link prefetch (Purpose: prefetch)', UA.chromeAndroid, { purpose: 'prefetch' }],
  ["Firefox's link prefetch (X-Moz: prefetch)", UA.firefoxDesktop, { 'x-moz': 'prefetch' }],
];

describe('prefetch and preview requests', () => {
  it.each(PREFETCHES)(
    'when %s fetches the link, then 503 no-store with no redirect or page to keep, and no click is recorded',
    async (_name, ua, headers) => {
      const l = await link();

      const res = await visit(l, ua, headers);

      expect(res.statusCode).toBe(503);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers.location).toBeUndefined();
      expect(res.body).toBe('');
      expect(await clickCount(l)).toBe(0);
    },
  );

  it('when a prefetch is followed by the real tap, then the tap is redirected and counted once', async () => {
    const l = await link();

    const prefetch = await visit(l, UA.facebookAndroid, { 'x-purpose': 'preview' });
    const tap = await visit(l, UA.facebookAndroid);

    expect(prefetch.statusCode).toBe(503);
    expect(tap.statusCode).toBe(200); // the in-app intermediary page
    expect(await clickCount(l)).toBe(1);
  });

  it('when the link is prefetched on a deeper path or with ?c=, then it is refused alike', async () => {
    const l = await link();
    for (const url of [`/?c=${l.displayId}`, `/promo/summer25?c=${l.displayId}`]) {
      const res = await visitLink(h(), l.host, url, UA.chromeAndroid, { 'sec-purpose': 'prefetch' });
      expect(res.statusCode, url).toBe(503);
    }
    expect(await clickCount(l)).toBe(0);
  });

  it('when the same agents send no prefetch header, then each visit is counted once', async () => {
    const l = await link();
    for (const ua of [UA.facebookAndroid, UA.instagramIos, UA.chromeAndroid, UA.firefoxDesktop]) {
      expect((await visit(l, ua)).statusCode).toBeLessThan(400);
    }
    expect(await clickCount(l)).toBe(4);
  });
});

describe("Google's and Meta's documented fetchers", () => {
  it.each([
    // Google's AI crawler for Vertex AI Search (special-case crawlers).
    [
      'Google-CloudVertexBot',
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 (compatible; Google-CloudVertexBot; +https://cloud.google.com/enterprise-search)',
    ],
    // Google's user-triggered fetchers, three with a phone's agent in front (they were Android taps).
    [
      'Google-Read-Aloud',
      'Mozilla/5.0 (Linux; Android 7.0; SM-G930V Build/NRD90M) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/59.0.3071.125 Mobile Safari/537.36 (compatible; Google-Read-Aloud; +https://support.google.com/webmasters/answer/1061943)',
    ],
    [
      'Google-GeminiNotebook',
      'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/138.0.0.0 Mobile Safari/537.36 (compatible; Google-GeminiNotebook; +https://developers.google.com/crawling/docs/crawlers-fetchers/google-gemininotebook)',
    ],
    [
      'DuplexWeb-Google',
      'Mozilla/5.0 (Linux; Android 11; Pixel 2; DuplexWeb-Google/1.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/86.0.4240.193 Mobile Safari/537.36',
    ],
    ['Google-Safety', 'Google-Safety'],
    ['Google-Site-Verification', 'Mozilla/5.0 (compatible; Google-Site-Verification/1.0)'],
    // Meta's ad-quality crawler.
    ['Facebot', 'Facebot'],
  ])('when %s fetches the link, then it is redirected but no click is recorded', async (_name, ua) => {
    const l = await link();

    const res = await visit(l, ua);

    expect(res.statusCode).toBe(302);
    expect(await clickCount(l)).toBe(0);
  });

  it.each([
    ['meta-externalads', 'meta-externalads/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)'],
    ['meta-externalagent', 'meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)'],
    [
      'FacebookBot',
      'Mozilla/5.0 (compatible; FacebookBot/1.0; +https://developers.facebook.com/docs/sharing/webmasters/facebookbot/)',
    ],
    [
      'iMessage preview',
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0',
    ],
    [
      'AdsBot-Google-Mobile',
      'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36 (compatible; AdsBot-Google-Mobile; +http://www.google.com/mobile/adsbot.html)',
    ],
    ['WhatsApp', 'WhatsApp/2.23.20.0 A'],
    ['Slack', 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)'],
    ['Telegram', 'TelegramBot (like TwitterBot)'],
  ])('when the preview fetcher %s fetches the link, then it is redirected and not counted', async (_name, ua) => {
    const l = await link();
    expect((await visit(l, ua)).statusCode).toBe(302);
    expect(await clickCount(l)).toBe(0);
  });
});
