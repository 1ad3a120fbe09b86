// The body of an install or signup webhook (product notes, "Webhooks"). The user's own fields
// (name, phone, email) are included as the notes list them: the receiver is the project itself.
// Campaign fields are those known when the notification is queued (a sign-up whose install is
// still being attributed names no campaign).
import type { DeliveryContext } from '../../store/postgres/delivery-context.ts';

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export function webhookBody(event: 'install' | 'signup', ctx: DeliveryContext): Record<string, unknown> {
  const network = ctx.network ?? (ctx.campaignDisplayId ? 'LINK' : 'ORGANIC');
  return {
    event_type: event,
    user_id: event === 'install' ? null : ctx.userId,
    install_instance_id: ctx.installInstanceId,
    campaign_id: ctx.campaignDisplayId,
    campaign_name: ctx.campaignName,
    network_name: network,
    ad_channel: ctx.network ?? null,
    attributed_on: iso(ctx.attributedAt),
    installed_at: iso(ctx.installedAt),
    store_click_at: iso(ctx.storeClickAt),
    link: ctx.link,
    app_version: ctx.appVersion || null,
    gaid: ctx.gaid,
    idfa: ctx.idfa,
    name: event === 'install' ? null : ctx.name,
    phone: event === 'install' ? null : ctx.phone,
    email: event === 'install' ? null : ctx.email,
    additional_data: { device_data: ctx.deviceData },
    meta_campaign_details:
      ctx.network === 'META'
        ? {
            ad_creative_id: ctx.creativeId,
            ad_creative_name: ctx.creativeName,
            ad_set_id: ctx.adSetId,
            ad_set_name: ctx.adSetName,
          }
        : null,
    google_campaign_details: null,
  };
}
