// Apple Search Ads resolver: the iOS SDK sends the AdServices token (device_data
// .adservices_attribution_token, real-clients §5.2); we POST it as text/plain to Apple's
// attribution API (APPLE_ADS_ATTRIBUTION_URL) and map Apple's campaignId to the project's
// APPLE_SEARCH_ADS campaign with that network_campaign_id. No mapped campaign: no claim.
//
// Apple's answers: 200 with the record ({"attribution":true,"campaignId":…}); 400 for an invalid
// token (no claim, the install falls through to the other methods). 404 comes while Apple does not
// know the token yet: called too soon after the token was made (an app's first launch), for which
// Apple advises retrying every 5 s up to 3 times. So 404, like 5xx, 429, a timeout or a refused
// connection, is worth a retry (NetworkUnavailableError: a 404 within APPLE_NOT_YET_RETRY_LIMIT, the
// others within NETWORK_RETRY_LIMIT); once the retries are spent the install is decided without the
// claim.
import type { Deps } from '../../deps.ts';
import { HttpCallError, postText } from '../../lib/http-client.ts';
import { findCampaignByNetworkCampaignId } from '../../store/postgres/network-campaigns.ts';
import { type NetworkResolver, NetworkUnavailableError } from './resolvers.ts';
import type { NetworkClaim } from './types.ts';

export const APPLE_SEARCH_ADS = 'APPLE_SEARCH_ADS';
const TIMEOUT_MS = 1500;
const MAX_RESPONSE_BYTES = 16 * 1024;

type AppleRecord = Record<string, unknown>;

/** Apple's numeric ids as strings; '' for anything else. */
function idString(v: unknown): string {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) {
    return String(v);
  }
  return typeof v === 'string' && /^[0-9A-Za-z_-]{1,64}$/.test(v) ? v : '';
}

function dateMs(v: unknown): number | null {
  const ms = typeof v === 'string' ? Date.parse(v) : Number.NaN;
  return Number.isFinite(ms) ? ms : null;
}

/**
 * Retries of Apple's 404 per install: on the attribution queue's backoff (0.5, 1, 2, 4, 5, 5 s) the
 * last runs 17.5 s after the first call, past the 15 s of Apple's advice (every 5 s, up to 3 times);
 * the outage budget (NETWORK_RETRY_LIMIT) stops at 7.5 s.
 */
export const APPLE_NOT_YET_RETRY_LIMIT = 6;

/** Apple's attribution record, or null when the token is invalid (400). */
async function fetchAttribution(url: string, token: string): Promise<AppleRecord | null> {
  let res: { status: number; body: string };
  try {
    res = await postText(url, token, {
      contentType: 'text/plain',
      timeoutMs: TIMEOUT_MS,
      maxBytes: MAX_RESPONSE_BYTES,
    });
  } catch (err) {
    if (err instanceof HttpCallError && (err.kind === 'timeout' || err.kind === 'network')) {
      throw new NetworkUnavailableError(`Apple AdServices: ${err.message}`);
    }
    throw err;
  }
  if (res.status === 400) {
    return null;
  }
  if (res.status === 404) {
    throw new NetworkUnavailableError('Apple AdServices answered 404 (token not known yet)', APPLE_NOT_YET_RETRY_LIMIT);
  }
  if (res.status >= 500 || res.status === 429) {
    throw new NetworkUnavailableError(`Apple AdServices answered ${res.status}`);
  }
  if (res.status !== 200) {
    throw new Error(`Apple AdServices answered ${res.status}`);
  }
  let body: unknown;
  try {
    body = JSON.parse(res.body);
  } catch {
    body = null;
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw new Error('Apple AdServices answered 200 without a JSON object');
  }
  return body as AppleRecord;
}

/** The claim of Apple's record on our campaign; its time is the tap's (clickDate), else the view's. */
export function appleClaim(record: AppleRecord, campaign: { id: number; displayId: string }): NetworkClaim {
  const clickTs = dateMs(record.clickDate);
  const viewTs = clickTs === null ? dateMs(record.impressionDate) : null;
  return {
    method: 'apple_search_ads',
    network: APPLE_SEARCH_ADS,
    campaignId: campaign.id,
    displayId: campaign.displayId,
    ts: clickTs ?? viewTs,
    touchType: viewTs !== null ? 'view' : 'click',
    adSetId: idString(record.adGroupId),
    adSetName: '',
    creativeId: idString(record.adId),
    creativeName: '',
    keywordId: idString(record.keywordId),
    keywordName: '',
  };
}

export function appleSearchAdsResolver(deps: Pick<Deps, 'sql' | 'config'>): NetworkResolver {
  return {
    method: 'apple_search_ads',
    async resolve({ projectId, install }) {
      if (!install.appleAdsToken) {
        return null;
      }
      const record = await fetchAttribution(deps.config.appleAdsAttributionUrl, install.appleAdsToken);
      const appleCampaignId = record?.attribution === true ? idString(record.campaignId) : '';
      if (!record || !appleCampaignId) {
        return null;
      }
      // The campaign mapped when the install was made: one deleted since still takes it, as its clicks do.
      const campaign = await findCampaignByNetworkCampaignId(
        deps.sql,
        projectId,
        APPLE_SEARCH_ADS,
        appleCampaignId,
        install.createdAt,
      );
      return campaign ? appleClaim(record, campaign) : null;
    },
  };
}
