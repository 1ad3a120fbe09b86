// The body of an install or signup webhook (product notes, "Webhooks"). The user's own fields
// (name, phone, email) are included as the notes list them: the receiver is the project itself.
// The campaign fields (webhookAttribution) describe the install's decided attribution: an install
// webhook is queued by the decision, and a sign-up whose install is still being attributed is held
// until the decision fills them (release-held-deliveries.ts).
// additional_data is the trigger's `data` as the SDK sent it (capped and cleaned by the parser),
// with the device_data stored for the user (real-clients §4.3); an install has only device_data.
//
// Network details are filled from what the install's winning touch told (installs.network_details):
// - google_campaign_details (a GOOGLE install): gclid and gbraid of the winning click, ga_source its
//   utm_source (Google Analytics' "source"), ad_group_id / ad_group_name its ad set (Google's ad
//   group). A key the click did not carry is null; so are all three ids for an install that no
//   click of ours decided.
// - meta_campaign_details (a META install): ad creative and ad set from the decision; the campaign
//   group, account, objective, is_instagram and placement come only from Meta's install referrer
//   (a click through our link carries none of them), so they are null for a click-attributed install.
import type { DeliveryContext } from '../../store/postgres/delivery-context.ts';

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);
const known = (ctx: DeliveryContext, key: string): string | boolean | null => ctx.networkDetails[key] ?? null;

function metaDetails(ctx: DeliveryContext): Record<string, unknown> {
  return {
    ad_creative_id: ctx.creativeId,
    ad_creative_name: ctx.creativeName,
    ad_set_id: ctx.adSetId,
    ad_set_name: ctx.adSetName,
    campaign_group_id: known(ctx, 'campaign_group_id'),
    campaign_group_name: known(ctx, 'campaign_group_name'),
    account_id: known(ctx, 'account_id'),
    ad_objective_name: known(ctx, 'ad_objective_name'),
    is_instagram: known(ctx, 'is_instagram'),
    publisher_platform: known(ctx, 'publisher_platform'),
    platform_position: known(ctx, 'platform_position'),
  };
}

function googleDetails(ctx: DeliveryContext): Record<string, unknown> {
  return {
    gclid: known(ctx, 'gclid'),
    gbraid: known(ctx, 'gbraid'),
    ga_source: known(ctx, 'ga_source'),
    ad_group_id: ctx.adSetId,
    ad_group_name: ctx.adSetName,
  };
}

/** The body's fields that come from the install's attribution (a held sign-up gets them on decision). */
export function webhookAttribution(ctx: DeliveryContext): Record<string, unknown> {
  return {
    campaign_id: ctx.campaignDisplayId,
    campaign_name: ctx.campaignName,
    network_name: ctx.network ?? (ctx.campaignDisplayId ? 'LINK' : 'ORGANIC'),
    ad_channel: ctx.network ?? null,
    attributed_on: iso(ctx.attributedAt),
    store_click_at: iso(ctx.storeClickAt),
    meta_campaign_details: ctx.network === 'META' ? metaDetails(ctx) : null,
    google_campaign_details: ctx.network === 'GOOGLE' ? googleDetails(ctx) : null,
  };
}

export function webhookBody(
  event: 'install' | 'signup',
  ctx: DeliveryContext,
  data: Record<string, unknown> = {},
): Record<string, unknown> {
  const attribution = webhookAttribution(ctx);
  return {
    event_type: event,
    user_id: event === 'install' ? null : ctx.userId,
    install_instance_id: ctx.installInstanceId,
    campaign_id: attribution.campaign_id,
    campaign_name: attribution.campaign_name,
    network_name: attribution.network_name,
    ad_channel: attribution.ad_channel,
    attributed_on: attribution.attributed_on,
    installed_at: iso(ctx.installedAt),
    store_click_at: attribution.store_click_at,
    link: ctx.link,
    app_version: ctx.appVersion || null,
    gaid: ctx.gaid,
    idfa: ctx.idfa,
    name: event === 'install' ? null : ctx.name,
    phone: event === 'install' ? null : ctx.phone,
    email: event === 'install' ? null : ctx.email,
    additional_data: { ...data, device_data: ctx.deviceData },
    meta_campaign_details: attribution.meta_campaign_details,
    google_campaign_details: attribution.google_campaign_details,
  };
}
