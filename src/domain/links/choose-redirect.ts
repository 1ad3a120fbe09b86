// Where a click goes, by platform. Every candidate is a value stored on the campaign, its project or
// its store listings (reliability D7: no request input ever reaches Location); the only thing we add
// is our own `referrer` parameter on the Play listing, so the Play Install Referrer hands the click
// id and UTM values back to the app. A stored value that is not a safe http(s) URL is skipped, as
// if it were absent, and the chain moves on. So is one on a host the link handler itself answers
// (the project's link domains, the service's own host): an app's universal link stored as the
// deeplink, the website fallback, sent the visitor back to the link, a loop counting a click a round.
import { isSafeWebUrl } from '../../lib/validate.ts';
import type { CampaignRecord } from '../../store/postgres/campaigns.ts';
import type { Platform, StoreListing } from '../../store/postgres/store-listings.ts';
import type { ClickPlatform } from './classify-user-agent.ts';

export const UTM_KEYS = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'] as const;
export type UtmKey = (typeof UTM_KEYS)[number];

export type RedirectInput = {
  platform: ClickPlatform;
  campaign: Pick<
    CampaignRecord,
    'androidWebRedirect' | 'iosWebRedirect' | 'linkForDesktopUsers' | 'website' | 'deeplink'
  >;
  projectWebsite: string | null;
  /** One listing per platform: the campaign's own, else the project's first. */
  listings: Partial<Record<Platform, Pick<StoreListing, 'storeUrl'>>>;
  clickId: string;
  utm: Partial<Record<UtmKey, string>>;
  /** Whether a target's host (URL hostname) is answered by the link handler itself: never a target. */
  isLinkHost: (host: string) => boolean;
};

type Hosts = Pick<RedirectInput, 'isLinkHost'>;

/**
 * A stored value usable as Location, normalised by the URL parser (non-ASCII percent-encoded), and
 * not on a host of the link handler's.
 */
function web(value: string | null | undefined, hosts: Hosts): string | undefined {
  if (!value || !isSafeWebUrl(value)) {
    return undefined;
  }
  const url = new URL(value);
  return hosts.isLinkHost(url.hostname) ? undefined : url.href;
}

/** `lr_click_id=<id>&utm_source=…`: what the app reads back from the Play Install Referrer. */
function playReferrerValue(clickId: string, utm: RedirectInput['utm']): string {
  const pairs = [`lr_click_id=${encodeURIComponent(clickId)}`];
  for (const k of UTM_KEYS) {
    const v = utm[k];
    if (v) {
      pairs.push(`${k}=${encodeURIComponent(v)}`);
    }
  }
  return pairs.join('&');
}

// The listing's own parameters (id, listing, hl) are kept byte for byte; a `referrer` it carries is
// replaced by ours.
function withPlayReferrer(storeUrl: string, referrer: string): string {
  const hashAt = storeUrl.indexOf('#');
  const hash = hashAt >= 0 ? storeUrl.slice(hashAt) : '';
  const noHash = hashAt >= 0 ? storeUrl.slice(0, hashAt) : storeUrl;
  const qAt = noHash.indexOf('?');
  const path = qAt >= 0 ? noHash.slice(0, qAt) : noHash;
  const params = (qAt >= 0 ? noHash.slice(qAt + 1) : '')
    .split('&')
    .filter((p) => p !== '' && !/^referrer(?:=|$)/i.test(p));
  params.push(`referrer=${encodeURIComponent(referrer)}`);
  return `${path}?${params.join('&')}${hash}`;
}

function playListing(input: RedirectInput): string | undefined {
  const url = web(input.listings.ANDROID?.storeUrl, input);
  return url ? withPlayReferrer(url, playReferrerValue(input.clickId, input.utm)) : undefined;
}

/** Campaign website → project website → deeplink when it is a web URL. */
function websiteFallback(input: RedirectInput): string | undefined {
  return web(input.campaign.website, input) ?? web(input.projectWebsite, input) ?? web(input.campaign.deeplink, input);
}

/**
 * The iOS target proper: `ios_web_redirect`, else the App Store listing (no website fallback). An
 * agent that may be an iPad in desktop mode is offered it when it differs from the desktop target.
 */
export function iosTarget(input: Omit<RedirectInput, 'platform'>): string | undefined {
  return web(input.campaign.iosWebRedirect, input) ?? web(input.listings.IOS?.storeUrl, input);
}

/** The Location for this click, or undefined when nothing stored fits (the link answers 404). */
export function chooseRedirect(input: RedirectInput): string | undefined {
  const c = input.campaign;
  switch (input.platform) {
    case 'ANDROID':
      return web(c.androidWebRedirect, input) ?? playListing(input) ?? websiteFallback(input);
    case 'IOS':
      return iosTarget(input) ?? websiteFallback(input);
    default:
      // Desktop and unknown devices: the desktop link, the websites, then a store page (Play first:
      // its web page can install to the visitor's phone).
      return (
        web(c.linkForDesktopUsers, input) ??
        websiteFallback(input) ??
        playListing(input) ??
        web(input.listings.IOS?.storeUrl, input)
      );
  }
}
