// Small checks shared by the CLI and the domain: IANA zones, ISO currencies, host names, URLs.
import { domainToASCII } from 'node:url';

const currencies = new Set(Intl.supportedValuesOf('currency'));

// IANA names: components start with a capital letter ('America/Port-au-Prince', 'Etc/GMT+5').
const TZ_SHAPE = /^[A-Z][A-Za-z0-9_+-]*(?:\/[A-Z][A-Za-z0-9_+-]*)*$/;

// IANA's zone names and links without a '/' (tzdata 2025). ICU also resolves its own legacy ids
// (IST, PST, JST, AET, CTT, ...) that IANA never had: IST is India's, Israel's or Ireland's time,
// and ClickHouse, where every fact carries project_tz, answers "Cannot load time zone IST". Each
// name here loads in the embedded ClickHouse (toTimeZone(now(), name)).
const IANA_SLASHLESS = (
  'UTC GMT EST MST HST EST5EDT CST6CDT MST7MDT PST8PDT CET MET EET WET UCT Universal Zulu Greenwich GMT0 GMT+0 GMT-0 ' +
  'Cuba Egypt Eire GB GB-Eire Hongkong Iceland Iran Israel Jamaica Japan Kwajalein Libya NZ NZ-CHAT Navajo PRC ' +
  'Poland Portugal ROC ROK Singapore Turkey W-SU'
).split(' ');
const SLASHLESS_EXACT = new Set(IANA_SLASHLESS);
const SLASHLESS_ANY_CASE = new Set(IANA_SLASHLESS.map((n) => n.toLowerCase()));
// Ids with a '/' that ICU still resolves but IANA dropped (SystemV/* and US/Pacific-New in 2020b,
// Canada/East-Saskatchewan in 2017c): ClickHouse cannot load them either.
const DROPPED_FROM_IANA = /^(?:SystemV\/|US\/Pacific-New$|Canada\/East-Saskatchewan$)/i;

/**
 * Whether `tz` can be an IANA zone name or link (whether the runtime knows it is Intl's to say).
 * `anyCase` is for a zone read only by Intl, which matches names case-insensitively.
 */
export function isIanaZoneName(tz: string, anyCase = false): boolean {
  if (tz.includes('/')) {
    return !DROPPED_FROM_IANA.test(tz);
  }
  return anyCase ? SLASHLESS_ANY_CASE.has(tz.toLowerCase()) : SLASHLESS_EXACT.has(tz);
}

export function isValidTimeZone(tz: string): boolean {
  if (tz.length > 64 || !TZ_SHAPE.test(tz) || !isIanaZoneName(tz)) {
    return false;
  }
  try {
    // Intl matches names case-insensitively, ClickHouse does not ('utc' fails every report query):
    // refuse a case variant of the canonical name. (A link's case variant, 'US/EASTERN', still
    // passes: Intl never says how a link is spelled.)
    const canonical = new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
    return canonical === tz || canonical.toLowerCase() !== tz.toLowerCase();
  } catch {
    return false;
  }
}

/**
 * Characters (Unicode code points) in `s`, what a limit "of at most N characters" counts. A
 * string's length counts UTF-16 units, two for each emoji and other astral character: an event
 * name of 128 emoji was refused as longer than 255 characters.
 */
export function charLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

export function isValidCurrency(code: string): boolean {
  return /^[A-Z]{3}$/.test(code) && currencies.has(code);
}

// The last label is letters, or an internationalised TLD's punycode (рф: xn--p1ai).
const HOST_RE =
  /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{0,57}[a-z0-9])$|^localhost$/;

/**
 * The host as a browser sends it in Host, or undefined. An internationalised name (bücher.example)
 * becomes its punycode form (xn--bcher-kva.example), as the URL parser makes a store URL's host.
 */
export function normalizeDomain(name: string): string | undefined {
  const trimmed = name.trim();
  // domainToASCII parses a URL host: it would drop a path, query or fragment ('bücher.example/x'),
  // so the ASCII part may hold only what a host name holds.
  const ascii = trimmed.replace(/[\u0080-\u{10ffff}]/gu, '');
  const idn = ascii !== trimmed && /^[a-z0-9.-]*$/i.test(ascii);
  const host = (idn ? domainToASCII(trimmed) : trimmed).toLowerCase().replace(/\.$/, '');
  return HOST_RE.test(host) ? host : undefined;
}

const MAX_URL = 2048;
// Schemes that run code or read local files; never a redirect or deeplink target.
const DENIED_SCHEMES = new Set([
  'javascript',
  'data',
  'vbscript',
  'file',
  'blob',
  'about',
  'filesystem',
  'view-source',
]);

function hasControlChars(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // C0, space, DEL and C1 (U+0080 to U+009F, e.g. NEL)
    if (c <= 0x20 || (c >= 0x7f && c <= 0x9f)) {
      return true;
    }
  }
  return false;
}

/** An absolute http(s) URL with a host and no credentials or control characters. */
export function isSafeWebUrl(value: string): boolean {
  if (charLength(value) > MAX_URL || hasControlChars(value) || /%0[ad]/i.test(value) || value.includes('\\')) {
    return false;
  }
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return false;
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') {
    return false;
  }
  if (!/^https?:\/\/[^/]/i.test(value) || u.username !== '' || u.password !== '') {
    return false;
  }
  return normalizeDomain(u.hostname) !== undefined || /^\d{1,3}(\.\d{1,3}){3}$/.test(u.hostname);
}

/** A web URL, or an app scheme (myapp://path) whose scheme is not on the denylist. */
export function isSafeDeeplink(value: string): boolean {
  if (isSafeWebUrl(value)) {
    return true;
  }
  if (charLength(value) > MAX_URL || hasControlChars(value) || /%0[ad]/i.test(value)) {
    return false;
  }
  const m = /^([a-z][a-z0-9+.-]{0,63}):\/\/(.*)$/i.exec(value);
  if (!m?.[1]) {
    return false;
  }
  const scheme = m[1].toLowerCase();
  return !DENIED_SCHEMES.has(scheme) && scheme !== 'http' && scheme !== 'https';
}
