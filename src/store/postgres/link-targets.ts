// The campaign behind a link (host + display id), cached: a redirect would otherwise make up to five
// lookups before it records its click. Only found links are kept (a new campaign or domain opens at
// once); campaign writes in this process clear it after they run, and other processes' edits and
// deletions show within the TTL.
import type { CampaignRecord } from './campaigns.ts';
import { lookupCache } from './lookup-cache.ts';
import type { Project } from './projects.ts';
import type { Platform, StoreListing } from './store-listings.ts';

export type LinkTarget = {
  project: Project;
  campaign: CampaignRecord;
  listings: Partial<Record<Platform, StoreListing>>;
  /** The project's link domain names (stored form): a target on one of them would be the link again. */
  domainNames: string[];
};

export const linkTargets = lookupCache<LinkTarget | undefined>((t) => t !== undefined);
