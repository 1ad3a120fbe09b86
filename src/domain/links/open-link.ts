// A campaign link is opened: find the campaign, read the visitor's agent, pick the stored target
// for the platform, record the click (people only) and say how to answer. In-app browsers of social
// apps on phones get the intermediary page, which tries the app before the store. A Mac Safari agent,
// which an iPad in desktop mode sends too, gets a page that picks the iOS or the desktop target on
// the device (when they differ; the click is recorded once, before), and the iOS target when the
// campaign has no desktop target. No target is on a host this handler answers (choose-redirect.ts).
// A prefetch is refused before anything is looked up: a redirect or page the browser kept would
// serve the real tap without reaching us, and that tap would never be counted.
import type { Deps } from '../../deps.ts';
import { newClickId } from '../../lib/ids.ts';
import { isSafeDeeplink, isSafeWebUrl } from '../../lib/validate.ts';
import { chooseRedirect, iosTarget } from './choose-redirect.ts';
import { classifyUserAgent } from './classify-user-agent.ts';
import { withLinkParams } from './deeplink-params.ts';
import { readClickParams } from './read-click-params.ts';
import { recordClick } from './record-click.ts';
import { isServiceHost, normalizeHost, resolveLink } from './resolve-link.ts';

export type LinkRequest = {
  host: string;
  displayId: string | undefined;
  userAgent: string;
  referrer: string;
  ip: string;
  /** The link's query string as sent (after `?`), read in link order (read-click-params.ts). */
  search: string;
  /** False for requests that are not a visit (HEAD): answered alike, never counted. */
  countable: boolean;
  /** A prefetch or preview (is-prefetch.ts), not a tap: refused, never counted. */
  prefetch: boolean;
};

export type LinkOutcome =
  | { kind: 'not_found' }
  | { kind: 'prefetch_refused' }
  | { kind: 'redirect'; location: string }
  | { kind: 'in_app_page'; platform: 'IOS' | 'ANDROID'; storeUrl: string; appUrl: string | undefined }
  | { kind: 'ipad_or_desktop_page'; iosUrl: string; desktopUrl: string };

/** Whether a target's host is answered by the link handler: the project's link domains or the service's own host. */
function isLinkHost(publicUrl: string, domainNames: string[], rawHost: string): boolean {
  const host = normalizeHost(rawHost);
  return domainNames.includes(host) || isServiceHost(publicUrl, host);
}

/**
 * The campaign deeplink when it opens the app by its own scheme (myapp://…); web links don't. The
 * stored deeplink is checked, then the link's own parameters added (encoded): checked together, a
 * visitor's %0A or a long value turned the app's opening off.
 */
function appSchemeUrl(deeplink: string | null, linkParams: string): string | undefined {
  return deeplink && isSafeDeeplink(deeplink) && !isSafeWebUrl(deeplink)
    ? withLinkParams(deeplink, linkParams)
    : undefined;
}

export async function openLink(
  deps: Pick<Deps, 'sql' | 'config' | 'facts' | 'now'>,
  req: LinkRequest,
): Promise<LinkOutcome> {
  if (req.prefetch) {
    return { kind: 'prefetch_refused' };
  }
  const link = await resolveLink(deps, req.host, req.displayId);
  if (!link) {
    return { kind: 'not_found' };
  }
  const agent = classifyUserAgent(req.userAgent);
  const params = readClickParams(new URLSearchParams(req.search));
  const clickId = newClickId();
  const targets = {
    campaign: link.campaign,
    projectWebsite: link.project.website,
    listings: link.listings,
    clickId,
    utm: params,
    isLinkHost: (host: string) => isLinkHost(deps.config.publicUrl, link.domainNames, host),
  };
  // An agent that may be an iPad with no desktop target goes to the iOS one (a Mac lands on the App
  // Store's web page), rather than on a dead link.
  const location =
    chooseRedirect({ platform: agent.platform, ...targets }) ?? (agent.mayBeIpad ? iosTarget(targets) : undefined);
  // Nowhere to send the visitor: answered as an unknown link, and not counted.
  if (!location) {
    return { kind: 'not_found' };
  }
  const counted = req.countable && !agent.isBot;
  if (counted) {
    await recordClick(deps, {
      clickId,
      project: link.project,
      campaign: link.campaign,
      at: new Date(deps.now()),
      ip: req.ip,
      userAgent: req.userAgent,
      referrer: req.referrer,
      agent,
      params,
    });
  }
  const phone = agent.platform === 'IOS' || agent.platform === 'ANDROID' ? agent.platform : undefined;
  if (phone && agent.inAppBrowser !== '' && !agent.isBot) {
    // The app opened by its scheme gets the link's own parameters too (a referral code).
    const appUrl = appSchemeUrl(link.campaign.deeplink, params.linkParams);
    return { kind: 'in_app_page', platform: phone, storeUrl: location, appUrl };
  }
  // Crawlers keep the plain redirect (a Mac agent naming a bot, such as Applebot's, is no iPad).
  const ios = agent.mayBeIpad && !agent.isBot ? iosTarget(targets) : undefined;
  if (ios && ios !== location) {
    return { kind: 'ipad_or_desktop_page', iosUrl: ios, desktopUrl: location };
  }
  return { kind: 'redirect', location };
}
