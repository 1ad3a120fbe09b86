// src/lib/validate.ts: redirect and deeplink safety (catalog D7, OWASP unvalidated redirects),
// IANA time zones (catalog 4c: Mars/Base, UTC+25, ../../etc/passwd), ISO currencies, host names.
import { describe, expect, it } from 'vitest';
import {
  charLength,
  isSafeDeeplink,
  isSafeWebUrl,
  isValidCurrency,
  isValidTimeZone,
  normalizeDomain,
} from '../../src/lib/validate.ts';

const long = (len: number) => `https://example.com/${'a'.repeat(len - 'https://example.com/'.length)}`;

const SAFE_WEB = [
  'https://example.com',
  'https://example.com/',
  'http://example.com/path?q=1&r=2#frag',
  'https://sub.example.co.uk:8443/a/b',
  'HTTPS://EXAMPLE.COM/Path',
  'https://1.2.3.4/x',
  'https://example.com./trailing-dot-host',
  'https://xn--bcher-kva.example/',
  'https://good.example#@evil.example',
  'https://apps.apple.com/app/id123456789',
  'https://play.google.com/store/apps/details?id=com.example.app',
  long(2048),
];

const UNSAFE_WEB: [string, string][] = [
  ['javascript: URL', 'javascript:alert(1)'],
  ['javascript: with //', 'javascript://%0aalert(1)'],
  ['data: URL', 'data:text/html,<script>alert(1)</script>'],
  ['file: URL', 'file:///etc/passwd'],
  ['vbscript: URL', 'vbscript:msgbox(1)'],
  ['ftp: URL', 'ftp://example.com/x'],
  ['app scheme', 'myapp://open'],
  ['protocol-relative //evil', '//evil.example/x'],
  ['credentials https://good@evil', 'https://good.example@evil.example/'],
  ['user and password', 'https://user:pass@evil.example/'],
  ['encoded CRLF %0d%0a', 'https://example.com/%0d%0aSet-Cookie:%20a=b'],
  ['encoded CRLF in upper case', 'https://example.com/%0D%0ALocation:%20https://evil.example'],
  ['encoded LF only', 'https://example.com/?x=%0a'],
  ['raw CR LF', 'https://example.com/\r\nSet-Cookie: a=b'],
  ['tab', 'https://example.com/\tx'],
  ['space', 'https://exa mple.com/'],
  ['NUL', 'https://example.com/\u0000'],
  ['DEL', 'https://example.com/\u007f'],
  ['C1 control NEL', 'https://example.com/\u0085'],
  ['C1 control CSI', 'https://example.com/\u009b'],
  ['backslash host trick', 'https:\\\\evil.example'],
  ['single slash', 'https:/evil.example'],
  ['triple slash', 'https:///evil.example'],
  ['no scheme', 'example.com/path'],
  ['empty', ''],
  ['underscore host', 'https://exa_mple.com/'],
  ['single-label host', 'https://intranet/'],
  ['bad port', 'https://example.com:99999/'],
  ['bad IPv4', 'https://999.999.999.999/'],
  ['over 2 KB', long(2049)],
];

describe('isSafeWebUrl', () => {
  it.each(SAFE_WEB)('when the value is %s, then it is accepted', (url) => {
    expect(isSafeWebUrl(url)).toBe(true);
  });

  it.each(UNSAFE_WEB)('when the value has %s, then it is refused', (_why, url) => {
    expect(isSafeWebUrl(url)).toBe(false);
  });
});

describe('URL length', () => {
  it('when a URL is 2048 characters with emoji in it, then it is accepted; at 2049 characters, refused', () => {
    const at = (n: number) => `https://example.com/${'\u{1F600}'.repeat(n - 20)}`;
    expect([isSafeWebUrl(at(2048)), isSafeDeeplink(at(2048))]).toEqual([true, true]);
    expect([isSafeWebUrl(at(2049)), isSafeDeeplink(at(2049))]).toEqual([false, false]);
  });
});

describe('isSafeDeeplink', () => {
  it.each([
    ...SAFE_WEB,
    'myapp://open',
    'myapp://',
    'myapp://product/42?ref=campaign',
    'fb123456://authorize',
    'com.example.app://open?x=1',
    'MyApp://Open',
  ])('when the value is %s, then it is accepted', (url) => {
    expect(isSafeDeeplink(url)).toBe(true);
  });

  it.each<[string, string]>([
    ...UNSAFE_WEB.filter(([why]) => why !== 'app scheme' && why !== 'ftp: URL'),
    ['javascript:// app-style', 'javascript://comment%0aalert(1)'],
    ['JavaScript in mixed case', 'JaVaScRiPt://x'],
    ['data:// app-style', 'data://text/html,x'],
    ['file:// app-style', 'file://localhost/etc/passwd'],
    ['vbscript:// app-style', 'vbscript://x'],
    ['blob:', 'blob://https://evil.example/uuid'],
    ['scheme without //', 'myapp:open'],
    ['scheme starting with a digit', '1app://x'],
    ['app link with CRLF', 'myapp://x%0d%0ay'],
    ['app link with a space', 'myapp://a b'],
    ['app link with a C1 control', 'myapp://a\u0085b'],
    ['app link over 2 KB', `myapp://${'a'.repeat(2041)}`],
  ])('when the value has %s, then it is refused', (_why, url) => {
    expect(isSafeDeeplink(url)).toBe(false);
  });

  it('when an app link is exactly 2048 characters, then it is accepted', () => {
    const url = `myapp://${'a'.repeat(2040)}`;
    expect(url).toHaveLength(2048);
    expect(isSafeDeeplink(url)).toBe(true);
  });
});

describe('isValidTimeZone', () => {
  it.each([
    'UTC',
    'Asia/Kolkata',
    'Asia/Calcutta',
    'America/New_York',
    'America/Port-au-Prince',
    'America/Argentina/Buenos_Aires',
    'Europe/Berlin',
    'Australia/Adelaide',
    'Etc/GMT+5',
    'Etc/GMT-14',
    'US/Eastern',
    // IANA's names without a '/' (each loads in ClickHouse)
    ...['GMT', 'EST', 'MST', 'HST', 'EST5EDT', 'CST6CDT', 'MST7MDT', 'PST8PDT', 'CET', 'MET', 'EET', 'WET'],
    ...['UCT', 'Universal', 'Zulu', 'Greenwich', 'GMT0', 'GMT+0', 'GMT-0', 'Cuba', 'Egypt', 'Eire', 'GB', 'GB-Eire'],
    ...['Hongkong', 'Iceland', 'Iran', 'Israel', 'Jamaica', 'Japan', 'Kwajalein', 'Libya', 'NZ', 'NZ-CHAT'],
    ...['Navajo', 'PRC', 'Poland', 'Portugal', 'ROC', 'ROK', 'Singapore', 'Turkey', 'W-SU'],
  ])('when the zone is %s, then it is accepted', (tz) => {
    expect(isValidTimeZone(tz)).toBe(true);
  });

  it.each([
    ['an unknown area', 'Mars/Base'],
    ['an offset beyond 24 h', 'UTC+25'],
    ['an offset instead of a name', '+05:30'],
    ['a path traversal', '../../etc/passwd'],
    ['an absolute path', '/etc/localtime'],
    ['lower case (ClickHouse looks names up case-sensitively)', 'asia/kolkata'],
    ['lower-case utc', 'utc'],
    ['upper case', 'AMERICA/NEW_YORK'],
    ['a trailing newline', 'Asia/Kolkata\n'],
    ['a trailing space', 'UTC '],
    ['SQL', "UTC'; DROP TABLE projects;--"],
    ['empty', ''],
    ['over 64 characters', `America/${'A'.repeat(60)}`],
    // ICU's legacy ids: not IANA names, and ClickHouse cannot load them ("Cannot load time zone IST")
    ...['IST', 'PST', 'JST', 'AET', 'CTT', 'EST5', 'MST7'].map((tz) => [`ICU's legacy id ${tz}`, tz]),
    ...['SystemV/EST5', 'US/Pacific-New', 'Canada/East-Saskatchewan'].map((tz) => [`a name IANA dropped (${tz})`, tz]),
    ['a case variant of a name without a slash', 'Gmt'],
    // ClickHouse loads 'US/Eastern' and answers "Cannot load time zone US/EASTERN"
    ['a case variant of a link', 'US/EASTERN'],
    ['a lower-case link', 'us/pacific'],
    ['a case variant of a link with three parts', 'America/Argentina/buenos_aires'],
  ])('when the zone is %s, then it is refused', (_why, tz) => {
    expect(isValidTimeZone(tz)).toBe(false);
  });

  it('when the zone is any canonical zone the runtime lists but one newer than the engine, then it is accepted', () => {
    const refused = Intl.supportedValuesOf('timeZone').filter((tz) => !isValidTimeZone(tz));
    // tzdata 2025b's new zone: ClickHouse 26.7 answers "Cannot load time zone America/Coyhaique"
    expect(refused.filter((tz) => tz !== 'America/Coyhaique')).toEqual([]);
  });
});

describe('isValidCurrency', () => {
  it.each(['USD', 'EUR', 'INR', 'GBP', 'JPY'])('when the code is %s, then it is accepted', (code) => {
    expect(isValidCurrency(code)).toBe(true);
  });

  it.each(['usd', 'Usd', 'US', 'USDX', 'ABC', 'XXX', '', '12$', ' USD'])(
    'when the code is %j, then it is refused',
    (code) => {
      expect(isValidCurrency(code)).toBe(false);
    },
  );
});

describe('normalizeDomain', () => {
  it.each([
    ['links.example.com', 'links.example.com'],
    [' Example.COM. ', 'example.com'],
    ['sub.example.co.uk', 'sub.example.co.uk'],
    ['my-app.example.io', 'my-app.example.io'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['bücher.example', 'xn--bcher-kva.example'],
    [' Bücher.Example. ', 'xn--bcher-kva.example'],
    ['bücher.рф', 'xn--bcher-kva.xn--p1ai'],
    ['localhost', 'localhost'],
    [`${'a'.repeat(63)}.com`, `${'a'.repeat(63)}.com`],
  ])('when the name is %j, then it normalizes to %j', (input, expected) => {
    expect(normalizeDomain(input)).toBe(expected);
  });

  it.each([
    ['no dot', 'example'],
    ['an underscore', 'exa_mple.com'],
    ['a leading hyphen', '-bad.example.com'],
    ['a trailing hyphen in a label', 'bad-.example.com'],
    ['an empty label', 'example..com'],
    ['a label over 63 characters', `${'a'.repeat(64)}.com`],
    ['a name over 253 characters', `${'a.'.repeat(126)}com`],
    ['a path', 'example.com/path'],
    ['a scheme', 'https://example.com'],
    ['a port', 'example.com:8080'],
    ['an IP address', '1.2.3.4'],
    ['a non-ASCII name with a path', 'bücher.example/x'],
    ['a non-ASCII name with a query', 'bücher.example?x'],
    ['a non-ASCII name with a port', 'bücher.example:80'],
    ['a non-ASCII name with an escape', 'bücher%2eexample'],
    ['a non-ASCII name with a space', 'bü cher.example'],
    ['empty', ''],
  ])('when the name has %s, then it is refused', (_why, input) => {
    expect(normalizeDomain(input)).toBeUndefined();
  });
});

describe('charLength', () => {
  it.each<[string, string, number]>([
    ['ASCII', 'purchase', 8],
    ['an emoji (two UTF-16 units)', '🛒', 1],
    ['emoji and text', 'buy 🛒🛒', 6],
    ['a lone high surrogate', '\ud83d', 1],
    ['a lone low surrogate then a pair', '\ude00🛒', 2],
    ['a high surrogate at the end', 'a\ud83d', 2],
    ['empty', '', 0],
  ])('when the string is %s, then it counts code points', (_case, s, n) => {
    expect(charLength(s)).toBe(n);
  });
});
