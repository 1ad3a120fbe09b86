// Reads the display id out of a campaign link: `https://<host>/?c=<id>` or `https://<host>/<id>`.
// The host must be one of the project's domains or the service's own host. Read as the link handler
// reads it (a link an app reports names the campaign its click opened): a single path segment's id
// before `c`, and hosts matched without port, case or trailing dot.
import type { Deps } from '../../deps.ts';
import { type CampaignRecord, findCampaignByDisplayId } from '../../store/postgres/campaigns.ts';
import { findDomainByName } from '../../store/postgres/domains.ts';
import { isServiceHost, normalizeHost } from '../links/resolve-link.ts';

export function displayIdInUrl(url: URL): string | undefined {
  const segments = url.pathname.split('/').filter(Boolean);
  if (segments.length === 1 && segments[0]) {
    try {
      return decodeURIComponent(segments[0]);
    } catch {
      return undefined;
    }
  }
  // `?c=` on the root, or on a deeper path: an app's own universal link (product notes: a non-short
  // link is the deeplink's host and path plus `?c=<id>`), which the app reports as it opened it.
  return url.searchParams.get('c') || undefined;
}

export async function displayIdFromLink(
  deps: Pick<Deps, 'sql' | 'config'>,
  projectId: string,
  link: string,
): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(link.trim()) ? link.trim() : `https://${link.trim()}`);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return undefined;
  }
  const host = normalizeHost(url.hostname);
  if (!isServiceHost(deps.config.publicUrl, host) && !(await findDomainByName(deps.sql, projectId, host))) {
    return undefined;
  }
  return displayIdInUrl(url);
}

/**
 * The project's live campaign a link names (displayIdFromLink, then the campaign), if any. With
 * `liveAt` (attribution: the install's creation), a campaign deleted after that time counts too.
 */
export async function campaignFromLink(
  deps: Pick<Deps, 'sql' | 'config'>,
  projectId: string,
  link: string,
  liveAt?: Date,
): Promise<CampaignRecord | undefined> {
  const displayId = await displayIdFromLink(deps, projectId, link);
  return displayId ? findCampaignByDisplayId(deps.sql, projectId, displayId, liveAt) : undefined;
}
