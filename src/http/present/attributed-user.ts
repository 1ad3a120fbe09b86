// An attributed user → the spec's "Attributed user" JSON. device_data always carries the spec's
// keys: current SDKs never send base_os, build_id, android_id, device_type or api_level
// (real-clients §5.1, §8.10), so missing keys default to "" (strings) and 0 (api_level). Only those
// keys are returned (the stored device_data also holds ids, IPs and referrers that the data API
// has no reason to expose). Extra user_data fields come back as the app sent them. meta_ad_id,
// publisher_platform and platform_position are Meta's: "" / null for an install of another network.
import { campaignLink } from '../../domain/campaigns/campaign.ts';
import type { CampaignRecord } from '../../store/postgres/campaigns.ts';
import type { AttributedUserRow } from '../../store/postgres/users.ts';

const DEVICE_STRING_KEYS = [
  'brand',
  'base_os',
  'version',
  'build_id',
  'bundle_id',
  'device_id',
  'android_id',
  'device_name',
  'device_type',
  'build_number',
  'connectivity',
  'manufacturer',
  'application_name',
] as const;

const AD_CHANNELS = new Set(['GOOGLE', 'META', 'TIKTOK']);
const RESERVED = new Set(['id', 'name', 'email', 'phone', 'device_data']);

function text(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
}

export function presentDeviceData(d: Record<string, unknown>) {
  const out: Record<string, string | number> = {};
  for (const k of DEVICE_STRING_KEYS) {
    out[k] = text(d[k]);
  }
  const level = typeof d.api_level === 'string' ? Number(d.api_level) : d.api_level;
  out.api_level = typeof level === 'number' && Number.isFinite(level) ? level : 0;
  return out;
}

/** GOOGLE / META / TIKTOK from the install's network, else from the campaign's flags; else null. */
function adChannel(u: AttributedUserRow, c: CampaignRecord): string | null {
  const code = u.network || c.network || (c.google ? 'GOOGLE' : c.meta ? 'META' : '');
  return AD_CHANNELS.has(code) ? code : null;
}

/** A key of Meta's install referrer (saved with the decision) for a META install; else null. */
function metaDetail(u: AttributedUserRow, key: 'publisher_platform' | 'platform_position'): string | null {
  const v = u.network === 'META' ? u.networkDetails?.[key] : undefined;
  return typeof v === 'string' && v !== '' ? v : null;
}

export function presentAttributedUser(u: AttributedUserRow, c: CampaignRecord, publicUrl: string) {
  const extras = Object.fromEntries(Object.entries(u.extras).filter(([k]) => !RESERVED.has(k)));
  const channel = adChannel(u, c);
  return {
    attributed_at: u.attributedAt.toISOString(),
    ad_channel: channel,
    campaign_display_id: c.displayId,
    campaign_name: c.name,
    link: campaignLink(c, publicUrl),
    installed_at: u.installedAt.toISOString(),
    store_click_at: u.storeClickAt ? u.storeClickAt.toISOString() : null,
    // Meta's ad id: the creative of a META install only (spec: a string, so "" otherwise).
    meta_ad_id: channel === 'META' ? (u.creativeId ?? '') : '',
    ad_creative_id: u.creativeId ?? '',
    ad_creative_name: u.creativeName ?? '',
    ad_set_id: u.adSetId ?? '',
    ad_set_name: u.adSetName ?? '',
    publisher_platform: metaDetail(u, 'publisher_platform'),
    platform_position: metaDetail(u, 'platform_position'),
    user_data: {
      id: u.userId,
      name: u.name,
      email: u.email,
      phone: u.phone,
      device_data: presentDeviceData(u.deviceData),
      ...extras,
    },
  };
}
