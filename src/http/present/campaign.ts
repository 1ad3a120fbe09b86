// Campaign → response JSON (snake_case), one shape per endpoint as the spec lists them.
import { type Campaign, campaignLink, shareableLink } from '../../domain/campaigns/campaign.ts';
import type { StoreListing } from '../../store/postgres/store-listings.ts';

export const presentStoreListing = (l: StoreListing) => ({
  store_listing_id: l.id,
  name: l.name,
  platform: l.platform,
});

/** The edit response's data (spec: PATCH /campaigns/{display_id}). */
export function presentCampaignSummary(c: Campaign) {
  return {
    display_id: c.displayId,
    name: c.name,
    created_at: c.createdAt.toISOString(),
    update_at: c.updatedAt.toISOString(),
    google: c.google,
    meta: c.meta,
    meta_campaign_id: c.metaCampaignId,
    meta_web_to_app: c.metaWebToApp,
    active: c.active,
    default_link: c.defaultLink,
    attributed_users: c.attributedUsers,
  };
}

/** A row of GET /campaigns. */
export function presentCampaign(c: Campaign, publicUrl: string) {
  return {
    ...presentCampaignSummary(c),
    link: campaignLink(c, publicUrl),
    shareable_link: shareableLink(c, publicUrl),
    domain: c.domainName,
    store_listings: c.storeListings.map(presentStoreListing),
  };
}

/** The create response's data. */
export function presentCreatedCampaign(c: Campaign, publicUrl: string) {
  return {
    id: c.id,
    name: c.name,
    link: campaignLink(c, publicUrl),
    website: c.website,
    display_id: c.displayId,
    created_at: c.createdAt.toISOString(),
    android_web_redirect: c.androidWebRedirect,
    ios_web_redirect: c.iosWebRedirect,
    domain: c.domainName,
    store_listings: c.storeListings.map(presentStoreListing),
  };
}
