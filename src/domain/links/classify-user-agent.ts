// Reads a click's User-Agent: platform (which redirect chain applies), parsed OS, device and
// browser (ua-parser-js 1.x, MIT; 2.x is AGPL), the social app whose in-app browser opened the
// link, and whether it is a crawler. ua-parser-js 1.x knows no bots, so crawlers come from a list.
import UAParser from 'ua-parser-js';

export type ClickPlatform = 'ANDROID' | 'IOS' | 'DESKTOP' | 'OTHER';
export type InAppBrowser = 'INSTAGRAM' | 'FACEBOOK' | 'TIKTOK' | 'SNAPCHAT' | 'LINKEDIN' | 'X' | '';

export type ClassifiedAgent = {
  platform: ClickPlatform;
  os: string;
  osVersion: string;
  deviceVendor: string;
  deviceModel: string;
  browser: string;
  inAppBrowser: InAppBrowser;
  isBot: boolean;
  /**
   * A Mac's Safari/WebKit agent that an iPad in its default desktop mode sends too (mayBeDesktopIpad):
   * still DESKTOP, recorded with the model MAC_OR_IPAD_MODEL so attribution can match an iPad to it.
   */
  mayBeIpad: boolean;
};

/** The click's device model when its agent may be an iPad in desktop mode (read by attribution). */
export const MAC_OR_IPAD_MODEL = 'Macintosh or iPad';

// Link-preview fetchers, search and AI crawlers, headless browsers and bare HTTP libraries: none is a
// person tapping a link, so they are redirected but never counted as clicks. An empty UA counts as
// a bot too. Generic "<name>bot/<version>" tokens catch the rest without matching phone models
// such as "CUBOT X20".
const BOT_PATTERNS: RegExp[] = [
  /googlebot|adsbot-google|mediapartners-google|google-inspectiontool|googleother|storebot-google|feedfetcher-google|apis-google/i,
  /bingbot|bingpreview|applebot|yandex(?:bot|images)|baiduspider|duckduckbot|slurp|petalbot|bytespider/i,
  /ahrefsbot|semrushbot|mj12bot|dotbot|gptbot|claudebot|ccbot|perplexitybot/i,
  /facebookexternalhit|facebookcatalog|meta-externalagent|twitterbot|slackbot|slack-imgproxy|linkedinbot/i,
  /^whatsapp\/|telegrambot|discordbot|skypeuripreview|pinterestbot|redditbot|embedly|iframely|vkshare/i,
  /^pinterest\/|snap url preview|tiktokspider|\(compatible;[^)]*\bbot\b|;\s*bot\s*;/i,
  /headlesschrome|lighthouse|phantomjs/i,
  /^(?:curl|wget|python-requests|python-urllib|python-httpx|python\/[\d.]+ aiohttp|aiohttp|go-http-client|okhttp|java|java-http-client|apache-httpclient|libwww-perl|node-fetch|node|deno|bun|axios|undici|postmanruntime|httpie|scrapy|guzzlehttp|dalvik|dart\/[\d.]+ \(dart:io\))(?:$|[\s/;(])/i,
  // Fetchers whose agent names no bot: Mastodon's link cards (ending in " Bot"), Bluesky's, Naver's.
  /^mastodon\/|\sbot$|\bcardyb\/|\byeti\/\d/i,
  // Google's and Meta's documented fetchers whose agents name no "bot/" token; three of Google's
  // carry a phone's agent in front (Read Aloud, Gemini Notebook, DuplexWeb). Named exactly, so the
  // Google app (GSA/…) and Meta's in-app browsers (FBAN/FBAV/FB_IAB) stay people.
  /google-(?:cloudvertexbot|read-aloud|gemininotebook|notebooklm|pinpoint|safety|site-verification|cws)\b/i,
  /duplexweb-google|googleproducer|\bfacebot\b/i,
  /[a-z0-9](?:bot|crawler|spider)\/\d/i,
  /\b(?:crawler|spider)\b/i,
];

// The social apps whose in-app browsers get the intermediary page; Instagram first, since some of
// its UAs also carry Facebook tokens. Meta's in-app browsers since late 2025 end in "MetaIAB <app>"
// (…Safari/604.1 MetaIAB Facebook; on Android a bare "MetaIAB" too) without FBAN/FBAV: "MetaIAB
// Instagram" is Instagram, any other (Facebook, Messenger, Threads) counts as Facebook's, as
// Messenger's FBAN/ agent always did.
const IN_APP_PATTERNS: [Exclude<InAppBrowser, ''>, RegExp][] = [
  ['INSTAGRAM', /\binstagram\b/i],
  ['FACEBOOK', /FBAN\/|FBAV\/|FB_IAB\/|FBIOS|\bFB4A\b|\bMetaIAB\b/],
  ['TIKTOK', /musical_ly|bytedancewebview|\btiktok\b|\btrill_\d/i],
  ['SNAPCHAT', /\bsnapchat\//i],
  ['LINKEDIN', /linkedinapp/i],
  ['X', /twitter for (?:iphone|ipad|android)|twitterandroid|\btwitter\/\d/i],
];

// The browser names ua-parser-js 1.x gives the same apps, in case a UA slips past the patterns.
const IN_APP_BY_BROWSER: Record<string, Exclude<InAppBrowser, ''>> = {
  Instagram: 'INSTAGRAM',
  Facebook: 'FACEBOOK',
  TikTok: 'TIKTOK',
  Snapchat: 'SNAPCHAT',
  LinkedIn: 'LINKEDIN',
  Twitter: 'X',
};

function isBotAgent(ua: string): boolean {
  return ua.trim() === '' || BOT_PATTERNS.some((re) => re.test(ua));
}

function inAppBrowserOf(ua: string, browserName: string): InAppBrowser {
  for (const [name, re] of IN_APP_PATTERNS) {
    if (re.test(ua)) {
      return name;
    }
  }
  return IN_APP_BY_BROWSER[browserName] ?? '';
}

// iPadOS 13+ in its default "desktop" mode sends a Mac UA; it counts as DESKTOP, since nothing in
// the request tells them apart (mayBeDesktopIpad marks the agents an iPad sends).
function platformOf(os: string, deviceType: string | undefined): ClickPlatform {
  if (/^android/i.test(os)) {
    return 'ANDROID';
  }
  if (os === 'iOS') {
    return 'IOS';
  }
  // Phones and tablets of other systems, TVs, consoles, watches: no store of ours serves them.
  if (deviceType !== undefined) {
    return 'OTHER';
  }
  return os === '' ? 'OTHER' : 'DESKTOP';
}

// iPadOS Safari in desktop mode, and the other browsers and in-app web views of an iPad (all WebKit),
// send a Mac Safari agent: "Macintosh; Intel Mac OS X 10_15_7" (Safari froze the Mac version there;
// 10_15 and 10_15_x are read alike) and WebKit's frozen "AppleWebKit/605.1.15". A Mac's Chrome,
// Edge, Opera (Blink: AppleWebKit/537.36, Chrome/) or Firefox (Gecko) never does, nor a Mac before
// 10.15. An iOS browser's own token (CriOS/, FxiOS/, EdgiOS/) after "Macintosh" is an iPad for sure,
// whatever Mac version it names: Chrome for iOS' "Request Desktop Site" agent (the default on an
// iPad) says "Mac OS X 10_13_5 … CriOS/<major> Version/11.1.1", and no Mac sends these tokens.
// Only the page's `navigator.maxTouchPoints` tells an iPad (5) from a Mac (0).
const MAC_WEBKIT = /\(Macintosh;[^)]*\bMac OS X 10[_.]15(?:[_.]\d+)*[;)].*\bAppleWebKit\/605\.1\.15\b/;
const DESKTOP_ENGINE = /\b(?:Chrome|Chromium|Edge?|OPR|Firefox)\//;
const MAC_IOS_BROWSER = /\(Macintosh;[^)]*\bMac OS X\b.*\b(?:CriOS|FxiOS|EdgiOS)\//;

/** Whether a Mac agent may be an iPad in its default desktop mode (see above). */
function mayBeDesktopIpad(ua: string): boolean {
  return MAC_IOS_BROWSER.test(ua) || (MAC_WEBKIT.test(ua) && !DESKTOP_ENGINE.test(ua));
}

// Parsing a UA is the largest CPU cost of a redirect (regex tables), and a campaign's clicks come
// from a few thousand distinct UAs: answers are kept per UA string (bounded; cleared when full).
const MAX_REMEMBERED = 5000;
const MAX_REMEMBERED_LENGTH = 512;
const remembered = new Map<string, ClassifiedAgent>();

export function classifyUserAgent(ua: string): ClassifiedAgent {
  const known = remembered.get(ua);
  if (known) {
    return known;
  }
  const agent = Object.freeze(parseUserAgent(ua));
  if (ua.length <= MAX_REMEMBERED_LENGTH) {
    if (remembered.size >= MAX_REMEMBERED) {
      remembered.clear();
    }
    remembered.set(ua, agent);
  }
  return agent;
}

function parseUserAgent(ua: string): ClassifiedAgent {
  const r = new UAParser(ua).getResult();
  const os = r.os.name ?? '';
  const browser = r.browser.name ?? '';
  const platform = platformOf(os, r.device.type);
  const mayBeIpad = platform === 'DESKTOP' && mayBeDesktopIpad(ua);
  return {
    platform,
    os,
    osVersion: r.os.version ?? '',
    deviceVendor: r.device.vendor ?? '',
    deviceModel: mayBeIpad ? MAC_OR_IPAD_MODEL : (r.device.model ?? ''),
    browser,
    inAppBrowser: inAppBrowserOf(ua, browser),
    isBot: isBotAgent(ua),
    mayBeIpad,
  };
}
