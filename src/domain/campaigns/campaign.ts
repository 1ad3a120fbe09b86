// What the campaign verbs return, and how a campaign's links are built.
import type { CampaignRecord } from '../../store/postgres/campaigns.ts';
import type { StoreListing } from '../../store/postgres/store-listings.ts';

export type Campaign = CampaignRecord & { storeListings: StoreListing[]; attributedUsers: number };

// Ad networks with a reserved channel name; any other code is an affiliate or custom network.
export const KNOWN_NETWORKS = ['GOOGLE', 'META', 'TIKTOK', 'APPLE_SEARCH_ADS', 'SNAPCHAT', 'LINKEDIN'] as const;

/** Channel and network codes compare upper-cased with underscores for spaces (spec: list channel). */
export function normalizeNetworkCode(value: string): string {
  return value.trim().toUpperCase().replace(/\s+/g, '_');
}

/** The host links are served on: the campaign's domain, else the service's own public URL. */
function linkBase(domainName: string | null, publicUrl: string): string {
  return domainName ? `https://${domainName}` : publicUrl;
}

/** spec: `https://<domain>/?c=<display_id>` */
export function campaignLink(c: Pick<CampaignRecord, 'domainName' | 'displayId'>, publicUrl: string): string {
  return `${linkBase(c.domainName, publicUrl)}/?c=${encodeURIComponent(c.displayId)}`;
}

/** The short shareable form, `https://<domain>/<display_id>`, which the link handler also accepts. */
export function shareableLink(c: Pick<CampaignRecord, 'domainName' | 'displayId'>, publicUrl: string): string {
  return `${linkBase(c.domainName, publicUrl)}/${encodeURIComponent(c.displayId)}`;
}
