// classifyUserAgent over real User-Agent strings: platform (which redirect chain applies), the parsed
// OS/device/browser recorded on the click, the social app's in-app browser (intermediary page) and
// crawlers (redirected, never counted).
import { describe, expect, it } from 'vitest';
import { type ClassifiedAgent, classifyUserAgent } from '../../src/domain/links/classify-user-agent.ts';

type Row = [label: string, ua: string, expected: Partial<ClassifiedAgent>];

const PEOPLE: Row[] = [
  [
    'Android Chrome',
    'Mozilla/5.0 (Linux; Android 13; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.144 Mobile Safari/537.36',
    {
      platform: 'ANDROID',
      os: 'Android',
      osVersion: '13',
      deviceVendor: 'Samsung',
      deviceModel: 'SM-S918B',
      browser: 'Chrome',
      inAppBrowser: '',
    },
  ],
  [
    'iPhone Safari',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1.2 Mobile/15E148 Safari/604.1',
    {
      platform: 'IOS',
      os: 'iOS',
      osVersion: '17.1.2',
      deviceVendor: 'Apple',
      deviceModel: 'iPhone',
      browser: 'Mobile Safari',
      inAppBrowser: '',
    },
  ],
  [
    'iPad Safari',
    'Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1',
    { platform: 'IOS', os: 'iOS', osVersion: '16.6', deviceModel: 'iPad', browser: 'Mobile Safari', inAppBrowser: '' },
  ],
  [
    'Instagram on iOS',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 307.0.0.34.111 (iPhone15,2; iOS 17_1; en_US; en; scale=3.00; 1179x2556; 532277029)',
    {
      platform: 'IOS',
      os: 'iOS',
      osVersion: '17.1',
      deviceModel: 'iPhone',
      browser: 'Instagram',
      inAppBrowser: 'INSTAGRAM',
    },
  ],
  [
    'Instagram on Android',
    'Mozilla/5.0 (Linux; Android 13; Pixel 7 Build/TQ3A.230805.001; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/116.0.5845.163 Mobile Safari/537.36 Instagram 298.0.0.31.110 Android (33/13; 420dpi; 1080x2400; Google/google; Pixel 7; panther; panther; en_US; 509948058)',
    {
      platform: 'ANDROID',
      os: 'Android',
      osVersion: '13',
      deviceVendor: 'Google',
      deviceModel: 'Pixel 7',
      inAppBrowser: 'INSTAGRAM',
    },
  ],
  [
    'Facebook on iOS',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 16_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBDV/iPhone14,5;FBMD/iPhone;FBSN/iOS;FBSV/16.5;FBSS/3;FBID/phone;FBLC/en_US;FBOP/5]',
    { platform: 'IOS', os: 'iOS', osVersion: '16.5', browser: 'Facebook', inAppBrowser: 'FACEBOOK' },
  ],
  [
    'Facebook on Android',
    'Mozilla/5.0 (Linux; Android 12; SM-G991B Build/SP1A.210812.016; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/114.0.5735.196 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/421.0.0.33.47;]',
    { platform: 'ANDROID', osVersion: '12', deviceModel: 'SM-G991B', browser: 'Facebook', inAppBrowser: 'FACEBOOK' },
  ],
  // Meta's in-app browsers since late 2025 end in "MetaIAB <app>" without FBAN/FBAV (inapp-spy#57,
  // uap-core#665); Instagram's own agent still names "Instagram" (with IABMV/1).
  [
    'Facebook on iOS (MetaIAB)',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_6_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/22G100 Safari/604.1 MetaIAB Facebook',
    { platform: 'IOS', os: 'iOS', deviceModel: 'iPhone', inAppBrowser: 'FACEBOOK' },
  ],
  [
    'Facebook on Android (MetaIAB)',
    'Mozilla/5.0 (Linux; Android 16; SM-G990U2 Build/BP2A.250605.031.A3; ) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/144.0.7559.117 Mobile Safari/537.36 MetaIAB Facebook',
    { platform: 'ANDROID', deviceModel: 'SM-G990U2', inAppBrowser: 'FACEBOOK' },
  ],
  [
    'a Meta app on Android (a bare MetaIAB)',
    'Mozilla/5.0 (Linux; Android 15; SM-A166W Build/AP3A.240905.015.A2; ) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/139.0.7258.158 Mobile Safari/537.36 MetaIAB',
    { platform: 'ANDROID', inAppBrowser: 'FACEBOOK' },
  ],
  [
    'Instagram on iOS (MetaIAB Instagram)',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_6_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/22G100 Safari/604.1 MetaIAB Instagram',
    { platform: 'IOS', inAppBrowser: 'INSTAGRAM' },
  ],
  [
    'Instagram on iOS 26 (IABMV/1)',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 26_3 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/23D127 Instagram 419.0.0.27.74 (iPhone17,2; iOS 26_3; en_US; en; scale=3.00; 1320x2868; IABMV/1; 895010607) Safari/604.1',
    { platform: 'IOS', inAppBrowser: 'INSTAGRAM' },
  ],
  [
    'TikTok on Android',
    'Mozilla/5.0 (Linux; Android 12; SM-A525F Build/SP1A.210812.016; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/110.0.5481.153 Mobile Safari/537.36 trill_2022903030 JsSdk/1.0 NetType/WIFI Channel/googleplay AppName/musical_ly app_version/29.3.3 ByteLocale/en ByteFullLocale/en Region/US BytedanceWebview/d8a21c6',
    { platform: 'ANDROID', os: 'Android', browser: 'TikTok', inAppBrowser: 'TIKTOK' },
  ],
  [
    'TikTok on iOS',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 16_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 musical_ly_29.3.0 JsSdk/2.0 NetType/WIFI Channel/App Store ByteLocale/en Region/US ByteFullLocale/en isDarkMode/0 WKWebView/1 BytedanceWebview/d8a21c6',
    { platform: 'IOS', osVersion: '16.4', inAppBrowser: 'TIKTOK' },
  ],
  [
    'Snapchat on iOS',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 16_3 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Snapchat/12.20.0.37 (like Safari/8615.1.26.10.23, panda)',
    { platform: 'IOS', browser: 'Snapchat', inAppBrowser: 'SNAPCHAT' },
  ],
  [
    'LinkedIn on iOS',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [LinkedInApp]/9.28.3870',
    { platform: 'IOS', browser: 'LinkedIn', inAppBrowser: 'LINKEDIN' },
  ],
  [
    'X on iOS',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Twitter for iPhone/10.4',
    { platform: 'IOS', inAppBrowser: 'X' },
  ],
  [
    'X on Android',
    'Mozilla/5.0 (Linux; Android 13; SM-G998B Build/TP1A.220624.014; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/118.0.5993.111 Mobile Safari/537.36 TwitterAndroid',
    { platform: 'ANDROID', inAppBrowser: 'X' },
  ],
  [
    'desktop Chrome on Windows',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
    { platform: 'DESKTOP', os: 'Windows', osVersion: '10', deviceModel: '', browser: 'Chrome', inAppBrowser: '' },
  ],
  [
    'desktop Firefox on Linux',
    'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0',
    { platform: 'DESKTOP', os: 'Ubuntu', browser: 'Firefox', inAppBrowser: '' },
  ],
  [
    'desktop Safari on macOS',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15',
    { platform: 'DESKTOP', os: 'Mac OS', browser: 'Safari' },
  ],
  // The Google app's own browser: "Google" in its agent, and a person.
  [
    'Google app on iPhone (GSA)',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) GSA/289.0.578000929 Mobile/15E148 Safari/604.1',
    { platform: 'IOS', inAppBrowser: '' },
  ],
  [
    'Google app on Android (GSA)',
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/120.0.6099.144 Mobile Safari/537.36 GSA/14.50.28.29.arm64',
    { platform: 'ANDROID', inAppBrowser: '' },
  ],
  [
    'a CUBOT phone (a model name ending in "bot")',
    'Mozilla/5.0 (Linux; Android 9; CUBOT X20 PRO) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/90.0.4430.91 Mobile Safari/537.36',
    { platform: 'ANDROID' },
  ],
];

const CRAWLERS: [label: string, ua: string][] = [
  [
    'Googlebot smartphone',
    'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.71 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  ],
  ['facebookexternalhit', 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)'],
  ['bingbot', 'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)'],
  ['Twitterbot', 'Twitterbot/1.0'],
  ['Slackbot', 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)'],
  ['LinkedInBot', 'LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)'],
  ['WhatsApp preview', 'WhatsApp/2.23.20.0 A'],
  ['TelegramBot', 'TelegramBot (like TwitterBot)'],
  ['Discordbot', 'Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)'],
  ['curl', 'curl/8.4.0'],
  ['wget', 'Wget/1.21.4'],
  ['an empty User-Agent', ''],
  // Published preview fetchers the generic rules missed (they were counted as clicks).
  ['Snap URL Preview Service', 'Snap URL Preview Service; bot; snapchat; https://developers.snap.com/robots'],
  [
    'TikTokSpider (on Android: it also got the TikTok in-app page)',
    'Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; TikTokSpider; ttspider-feedback@tiktok.com)',
  ],
  ['Pinterest crawler', 'Pinterest/0.2 (+https://www.pinterest.com/bot.html)'],
  // HTTP libraries with their default User-Agent.
  ['aiohttp', 'Python/3.11 aiohttp/3.9.1'],
  ["Node's fetch (undici)", 'node'],
  ['python-httpx', 'python-httpx/0.27.0'],
  ['Apache HttpClient', 'Apache-HttpClient/4.5.14 (Java/17.0.8)'],
  ['Dart', 'Dart/3.2 (dart:io)'],
  // Defaults the list missed (each was counted as a click): a Mastodon server fetching a post's
  // link card, Bluesky's card fetcher, Naver's crawler, and libraries' own agents.
  ['Mastodon link card', 'Mastodon/4.2.8 (http.rb/5.1.1; +https://mastodon.social/) Bot'],
  ['Bluesky Cardyb', 'Mozilla/5.0 (compatible; Bluesky Cardyb/1.1; +mailto:support@bsky.app)'],
  ['Naver Yeti', 'Mozilla/5.0 (compatible; Yeti/1.1; +https://naver.me/spd)'],
  ['Java 11+ HttpClient', 'Java-http-client/17.0.8'],
  ['Deno fetch', 'Deno/1.40.2'],
  ['Bun fetch', 'Bun/1.1.0'],
  ['Scrapy', 'Scrapy/2.11.0 (+https://scrapy.org)'],
  ['PHP Guzzle', 'GuzzleHttp/7'],
  ['Android HttpURLConnection', 'Dalvik/2.1.0 (Linux; U; Android 13; SM-S918B Build/TP1A.220624.014)'],
  // Google's and Meta's documented fetchers whose agents name no "bot/" token (each was counted,
  // the three with a phone's agent as Android taps).
  [
    'Google-CloudVertexBot',
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 (compatible; Google-CloudVertexBot; +https://cloud.google.com/enterprise-search)',
  ],
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
  ['Google-NotebookLM', 'Google-NotebookLM'],
  ['GoogleProducer', 'GoogleProducer; (+https://developers.google.com/search/docs/crawling-indexing/google-producer)'],
  ['Google-CWS', 'Mozilla/5.0 (compatible; Google-CWS)'],
  ['Facebot', 'Facebot'],
];

describe('classifyUserAgent', () => {
  it.each(PEOPLE)(
    'when the agent is %s, then it is classified as a person with the parsed fields',
    (_l, ua, expected) => {
      const got = classifyUserAgent(ua);
      expect(got).toMatchObject({ ...expected, isBot: false });
    },
  );

  it.each(CRAWLERS)('when the agent is %s, then it is a bot', (_l, ua) => {
    expect(classifyUserAgent(ua).isBot).toBe(true);
  });

  it('when the agent is Googlebot smartphone, then its platform is still parsed (it is redirected like a phone)', () => {
    expect(classifyUserAgent(CRAWLERS[0]?.[1] ?? '').platform).toBe('ANDROID');
  });
});
