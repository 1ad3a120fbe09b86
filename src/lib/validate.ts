// Small checks shared by the CLI and the domain: IANA zones, ISO currencies, host names, URLs.
import { domainToASCII } from 'node:url';

const currencies = new Set(Intl.supportedValuesOf('currency'));

// IANA's links (tzdata 2025): the names the embedded ClickHouse loads (system.time_zones) that
// Intl does not list as canonical. Names are matched exactly: ClickHouse loads 'US/Eastern' but
// answers "Cannot load time zone US/EASTERN", and every fact carries project_tz. ICU's own legacy
// ids (IST: India, Israel or Ireland?, PST, JST, ...) and the names IANA dropped (SystemV/*,
// US/Pacific-New) are in neither list.
const IANA_LINKS = (
  'Africa/Asmara Africa/Timbuktu America/Argentina/Buenos_Aires America/Argentina/Catamarca ' +
  'America/Argentina/ComodRivadavia America/Argentina/Cordoba America/Argentina/Jujuy America/Argentina/Mendoza ' +
  'America/Atikokan America/Atka America/Ensenada America/Fort_Wayne America/Indiana/Indianapolis ' +
  'America/Kentucky/Louisville America/Knox_IN America/Montreal America/Nipigon America/Nuuk America/Pangnirtung ' +
  'America/Porto_Acre America/Rainy_River America/Rosario America/Santa_Isabel America/Shiprock ' +
  'America/Thunder_Bay America/Virgin America/Yellowknife Antarctica/South_Pole Asia/Ashkhabad Asia/Choibalsan ' +
  'Asia/Chongqing Asia/Chungking Asia/Dacca Asia/Harbin Asia/Ho_Chi_Minh Asia/Istanbul Asia/Kashgar ' +
  'Asia/Kathmandu Asia/Kolkata Asia/Macao Asia/Tel_Aviv Asia/Thimbu Asia/Ujung_Pandang Asia/Ulan_Bator ' +
  'Asia/Yangon Atlantic/Faroe Atlantic/Jan_Mayen Australia/ACT Australia/Canberra Australia/Currie ' +
  'Australia/LHI Australia/NSW Australia/North Australia/Queensland Australia/South Australia/Tasmania ' +
  'Australia/Victoria Australia/West Australia/Yancowinna Brazil/Acre Brazil/DeNoronha Brazil/East Brazil/West ' +
  'CET CST6CDT Canada/Atlantic Canada/Central Canada/Eastern Canada/Mountain Canada/Newfoundland Canada/Pacific ' +
  'Canada/Saskatchewan Canada/Yukon Chile/Continental Chile/EasterIsland Cuba EET EST EST5EDT Egypt Eire ' +
  'Etc/GMT Etc/GMT+0 Etc/GMT+1 Etc/GMT+10 Etc/GMT+11 Etc/GMT+12 Etc/GMT+2 Etc/GMT+3 Etc/GMT+4 Etc/GMT+5 ' +
  'Etc/GMT+6 Etc/GMT+7 Etc/GMT+8 Etc/GMT+9 Etc/GMT-0 Etc/GMT-1 Etc/GMT-10 Etc/GMT-11 Etc/GMT-12 Etc/GMT-13 ' +
  'Etc/GMT-14 Etc/GMT-2 Etc/GMT-3 Etc/GMT-4 Etc/GMT-5 Etc/GMT-6 Etc/GMT-7 Etc/GMT-8 Etc/GMT-9 Etc/GMT0 ' +
  'Etc/Greenwich Etc/UCT Etc/UTC Etc/Universal Etc/Zulu Europe/Belfast Europe/Kyiv Europe/Nicosia ' +
  'Europe/Tiraspol Europe/Uzhgorod Europe/Zaporozhye GB GB-Eire GMT GMT+0 GMT-0 GMT0 Greenwich HST Hongkong ' +
  'Iceland Iran Israel Jamaica Japan Kwajalein Libya MET MST MST7MDT Mexico/BajaNorte Mexico/BajaSur ' +
  'Mexico/General NZ NZ-CHAT Navajo PRC PST8PDT Pacific/Chuuk Pacific/Johnston Pacific/Kanton Pacific/Pohnpei ' +
  'Pacific/Samoa Pacific/Yap Poland Portugal ROC ROK Singapore Turkey UCT US/Alaska US/Aleutian US/Arizona ' +
  'US/Central US/East-Indiana US/Eastern US/Hawaii US/Indiana-Starke US/Michigan US/Mountain US/Pacific ' +
  'US/Samoa UTC Universal W-SU WET Zulu'
).split(' ');
// Zones newer than the embedded ClickHouse's tzdata (Intl knows them, ClickHouse 26.7 does not).
const NOT_IN_CLICKHOUSE = new Set(['America/Coyhaique']);
const ZONE_NAMES = new Set(
  [...Intl.supportedValuesOf('timeZone'), ...IANA_LINKS].filter((n) => !NOT_IN_CLICKHOUSE.has(n)),
);
const ZONE_NAMES_ANY_CASE = new Set([...ZONE_NAMES].map((n) => n.toLowerCase()));

/**
 * Whether `tz` is an IANA zone name or link that ClickHouse loads, spelled exactly; `anyCase` is
 * for a zone read only by Intl, which matches names case-insensitively.
 */
export function isIanaZoneName(tz: string, anyCase = false): boolean {
  return anyCase ? ZONE_NAMES_ANY_CASE.has(tz.toLowerCase()) : ZONE_NAMES.has(tz);
}

export function isValidTimeZone(tz: string): boolean {
  if (!isIanaZoneName(tz)) {
    return false;
  }
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
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
