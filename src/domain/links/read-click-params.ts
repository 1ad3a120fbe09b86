// The ad-network parameters a campaign link may carry. They are recorded on the click and never
// used to build a redirect. Several spellings are accepted for the ad set, creative and keyword
// fields (networks' URL macros differ); the first present one wins. Every other parameter of the
// link is the app's own (a referral code: product notes "Referral codes"): kept as `linkParams`,
// carried to the install and returned inside the campaign deeplink (deeplink-params.ts).
import { cutChars, storable } from '../../lib/storable.ts';
import { normalizeNetworkCode } from '../campaigns/campaign.ts';
import { UTM_KEYS, type UtmKey } from './choose-redirect.ts';

export type ClickParams = Record<UtmKey, string> & {
  gclid: string;
  gbraid: string;
  wbraid: string;
  fbclid: string;
  ttclid: string;
  adSetId: string;
  adSetName: string;
  creativeId: string;
  creativeName: string;
  keywordId: string;
  keywordName: string;
  /** gaid or idfa (gaid wins), lower-case; '' unless it is a non-zero UUID. */
  adId: string;
  /** The link's `network` parameter, normalised; the campaign's own network takes precedence. */
  network: string;
  /** The link's other parameters as one encoded query (`name=value&…`); '' when none. See readLinkParams. */
  linkParams: string;
};

export const MAX_PARAM_CHARS = 512;

/** A string safe to store: no NUL, no lone surrogates, at most `max` characters (code points). */
export function cleanText(value: string, max = MAX_PARAM_CHARS): string {
  // NUL and lone surrogates cannot be stored in Postgres jsonb (the outbox): storable() as client text.
  return storable(cutChars(value.replaceAll('\u0000', ''), max));
}

/** The first non-blank of the named parameters (their first value each), trimmed and made storable. */
function first(q: URLSearchParams, ...names: string[]): string {
  for (const n of names) {
    const v = q.get(n);
    if (v !== null && v.trim() !== '') {
      return cleanText(v.trim());
    }
  }
  return '';
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// A zeroed id (limited ad tracking) or an unexpanded macro ("{gaid}") would tie unrelated users
// together in install matching, so only real UUIDs are kept: the first of gaid and idfa that is
// one (a link shared by both platforms carries both macros, and on an iPhone gaid stays "{gaid}").
function adIdOf(q: URLSearchParams): string {
  const real = (v: string) => UUID.test(v) && !/^[0-]+$/.test(v);
  return [first(q, 'gaid').toLowerCase(), first(q, 'idfa').toLowerCase()].find(real) ?? '';
}

/**
 * The click's parameters from the link's query, read as sent (URLSearchParams over the raw query
 * string, as linkParamsOfUrl reads an init link): a parsed query object lists names such as "2024"
 * first, which reordered the link's own parameters and let the cap drop a referral code.
 */
export function readClickParams(q: URLSearchParams): ClickParams {
  const network = first(q, 'network');
  return {
    gclid: first(q, 'gclid'),
    gbraid: first(q, 'gbraid'),
    wbraid: first(q, 'wbraid'),
    fbclid: first(q, 'fbclid'),
    ttclid: first(q, 'ttclid'),
    utm_source: first(q, 'utm_source'),
    utm_medium: first(q, 'utm_medium'),
    utm_campaign: first(q, 'utm_campaign'),
    utm_term: first(q, 'utm_term'),
    utm_content: first(q, 'utm_content'),
    adSetId: first(q, 'adset_id', 'ad_set_id'),
    adSetName: first(q, 'adset_name', 'ad_set_name'),
    creativeId: first(q, 'ad_id', 'creative_id'),
    creativeName: first(q, 'ad_name', 'creative_name'),
    keywordId: first(q, 'keyword_id'),
    keywordName: first(q, 'keyword', 'keyword_name'),
    adId: adIdOf(q),
    network: network ? normalizeNetworkCode(network).slice(0, 64) : '',
    linkParams: readLinkParams(q.entries()),
  };
}

/** Every name read above, the display id `c`, and `lr_*` (our own, as in the Play referrer): never kept as link parameters. */
const READ_BY_SERVICE = new Set([
  'c',
  'gaid',
  'idfa',
  'network',
  'gclid',
  'gbraid',
  'wbraid',
  'fbclid',
  'ttclid',
  // Other networks' click ids, not recorded but never the app's: Microsoft, Campaign Manager, X,
  // LinkedIn, Snapchat, Pinterest, Reddit, Yandex, impact.com.
  'msclkid',
  'dclid',
  'twclid',
  'li_fat_id',
  'sccid',
  'epik',
  'rdt_cid',
  'yclid',
  'irclickid',
  ...UTM_KEYS,
  'adset_id',
  'ad_set_id',
  'adset_name',
  'ad_set_name',
  'ad_id',
  'creative_id',
  'ad_name',
  'creative_name',
  'keyword_id',
  'keyword',
  'keyword_name',
]);

/** Whether the service reads `name` itself (compared case-insensitively: a GCLID is an ad id too, never the app's). */
export function isReadByService(name: string): boolean {
  const n = name.toLowerCase();
  return READ_BY_SERVICE.has(n) || n.startsWith('lr_');
}

export const MAX_LINK_PARAMS = 20;
export const MAX_LINK_PARAMS_CHARS = 1000;

/**
 * The link's own parameters, in the link's order, as `name=value&…` (each part encodeURIComponent'd,
 * so a space is %20 whatever parser the app uses): the first value of each name, names the service
 * reads left out, names and values made storable and capped like the other values. At most
 * MAX_LINK_PARAMS parameters and MAX_LINK_PARAMS_CHARS characters: a parameter that does not fit is
 * dropped (a later, shorter one may still fit); the click and its redirect never fail for it.
 */
export function readLinkParams(entries: Iterable<[string, unknown]>): string {
  const pairs: string[] = [];
  const seen = new Set<string>();
  let chars = 0;
  for (const [rawName, raw] of entries) {
    if (pairs.length === MAX_LINK_PARAMS) {
      break;
    }
    const value = Array.isArray(raw) ? raw[0] : raw;
    const name = cleanText(rawName);
    if (name === '' || typeof value !== 'string' || seen.has(name)) {
      continue;
    }
    seen.add(name);
    if (isReadByService(name)) {
      continue;
    }
    const pair = `${encodeURIComponent(name)}=${encodeURIComponent(cleanText(value))}`;
    const next = chars + (pairs.length > 0 ? 1 : 0) + pair.length;
    if (next <= MAX_LINK_PARAMS_CHARS) {
      pairs.push(pair);
      chars = next;
    }
  }
  return pairs.join('&');
}
