// The ad-network parameters a campaign link may carry. They are recorded on the click and never
// used to build a redirect. Several spellings are accepted for the ad set, creative and keyword
// fields (networks' URL macros differ); the first present one wins.
import { cutChars, storable } from '../../lib/storable.ts';
import { normalizeNetworkCode } from '../campaigns/campaign.ts';
import type { UtmKey } from './choose-redirect.ts';

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
};

export const MAX_PARAM_CHARS = 512;

/** A string safe to store: no NUL, no lone surrogates, at most `max` characters (code points). */
export function cleanText(value: string, max = MAX_PARAM_CHARS): string {
  // NUL and lone surrogates cannot be stored in Postgres jsonb (the outbox): storable() as client text.
  return storable(cutChars(value.replaceAll('\u0000', ''), max));
}

type Query = Record<string, unknown>;

function first(q: Query, ...names: string[]): string {
  for (const n of names) {
    const raw = q[n];
    const v = Array.isArray(raw) ? raw[0] : raw;
    if (typeof v === 'string' && v.trim() !== '') {
      return cleanText(v.trim());
    }
  }
  return '';
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// A zeroed id (limited ad tracking) or an unexpanded macro ("{gaid}") would tie unrelated users
// together in install matching, so only real UUIDs are kept: the first of gaid and idfa that is
// one (a link shared by both platforms carries both macros, and on an iPhone gaid stays "{gaid}").
function adIdOf(q: Query): string {
  const real = (v: string) => UUID.test(v) && !/^[0-]+$/.test(v);
  return [first(q, 'gaid').toLowerCase(), first(q, 'idfa').toLowerCase()].find(real) ?? '';
}

export function readClickParams(query: unknown): ClickParams {
  const q: Query = query && typeof query === 'object' ? (query as Query) : {};
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
  };
}
