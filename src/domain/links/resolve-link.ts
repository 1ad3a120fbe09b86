// Finds the campaign a link names. On a link domain (Host → domains.name → project) the display id
// is looked up in that project; any of the project's domains answers for any of its campaigns, so
// a change of primary domain does not break printed links. On the service's own host (PUBLIC_URL's
// host, localhost, 127.0.0.1) the display id is looked up across projects and used only when
// exactly one project holds it, deleted campaigns included: create-campaign refuses an id another
// project holds, and an id that two projects hold from before that rule (a deleted campaign counts)
// opens nothing there, so no tenant's printed link opens another tenant's campaign. Any other host
// is unknown: 404.
import type { Deps } from '../../deps.ts';
import { findCampaignByDisplayId } from '../../store/postgres/campaigns.ts';
import { listDomains } from '../../store/postgres/domains.ts';
import { type LinkTarget, linkTargets } from '../../store/postgres/link-targets.ts';
import { findLinkListings, findProjectByDomainName, findProjectIdsByDisplayId } from '../../store/postgres/links.ts';
import { findProjectById, type Project } from '../../store/postgres/projects.ts';

export type ResolvedLink = LinkTarget;

// Display ids are at most 64 characters (create-campaign); longer ones cannot exist.
const MAX_DISPLAY_ID = 64;

/** Host as the link domains store it: lower-case, no trailing dot (the port is already gone). */
export function normalizeHost(host: string): string {
  return host.trim().toLowerCase().replace(/\.$/, '');
}

// PUBLIC_URL's host, parsed once per value: the redirect asks for it for every candidate target.
let parsedPublicUrl: { url: string; host: string } | undefined;

/** Whether a normalized host is the service's own (PUBLIC_URL's host, whatever the port; localhost). */
export function isServiceHost(publicUrl: string, host: string): boolean {
  if (parsedPublicUrl?.url !== publicUrl) {
    parsedPublicUrl = { url: publicUrl, host: new URL(publicUrl).hostname.toLowerCase() };
  }
  return host === parsedPublicUrl.host || host === 'localhost' || host === '127.0.0.1';
}

async function projectOfLink(
  deps: Pick<Deps, 'sql' | 'config'>,
  host: string,
  displayId: string,
): Promise<Project | undefined> {
  const owner = await findProjectByDomainName(deps.sql, host);
  if (owner || !isServiceHost(deps.config.publicUrl, host)) {
    return owner;
  }
  const ids = await findProjectIdsByDisplayId(deps.sql, displayId, 2);
  return ids.length === 1 && ids[0] ? findProjectById(deps.sql, ids[0]) : undefined;
}

/** The live campaign behind a link, or undefined (unknown host, unknown or deleted campaign). */
export async function resolveLink(
  deps: Pick<Deps, 'sql' | 'config'>,
  rawHost: string,
  displayId: string | undefined,
): Promise<ResolvedLink | undefined> {
  if (!displayId || displayId.length > MAX_DISPLAY_ID) {
    return undefined;
  }
  const host = normalizeHost(rawHost);
  return linkTargets.get(`${host}\u0000${displayId}`, () => lookUpLink(deps, host, displayId));
}

async function lookUpLink(
  deps: Pick<Deps, 'sql' | 'config'>,
  host: string,
  displayId: string,
): Promise<ResolvedLink | undefined> {
  const project = await projectOfLink(deps, host, displayId);
  if (!project) {
    return undefined;
  }
  // Inactive campaigns still redirect and count: a paused campaign's links stay out in the world,
  // and a dead link would lose the user; reporting shows the clicks against the paused campaign.
  const campaign = await findCampaignByDisplayId(deps.sql, project.id, displayId);
  if (!campaign) {
    return undefined;
  }
  const [listings, domains] = await Promise.all([
    findLinkListings(deps.sql, project.id, campaign.id),
    listDomains(deps.sql, project.id),
  ]);
  return { project, campaign, listings, domainNames: domains.map((d) => d.name) };
}
