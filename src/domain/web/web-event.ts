// What the Web SDK (@linkrunner/web, real-clients §7) sends per event, as the fields the
// web_events fact keeps (ClickHouse migration 0032). The body is flat; each field is text or a
// number. Text is cut at its cap (the SDK's values are page URLs, ids and browser facts: cutting a
// 5 KB URL beats losing the page view); numbers are clamped to their column's range.

/** Text fields and the characters each keeps. The wire name is the column name, but for `platform`. */
export const WEB_TEXT_FIELDS = {
  event_name: 255,
  event_data: 16_384,
  visitor_id: 128,
  session_id: 128,
  user_id: 256,
  page_url: 4096,
  page_path: 2048,
  page_title: 1024,
  page_hash: 1024,
  page_search: 4096,
  canonical_url: 4096,
  entry_page: 4096,
  document_referrer: 4096,
  referring_domain: 255,
  traffic_source_type: 64,
  traffic_source_name: 255,
  ft_traffic_source_type: 64,
  ft_traffic_source_name: 255,
  user_agent: 1024,
  language: 64,
  languages: 512,
  timezone: 64,
  platform: 128,
  connection_type: 32,
  do_not_track: 32,
} as const;

const UTM_KEYS = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_id', 'utm_term', 'utm_content'] as const;
const CLICK_ID_KEYS = [
  'gclid',
  'gbraid',
  'wbraid',
  'fbclid',
  'fbc',
  'fbp',
  'ttclid',
  'twclid',
  'msclkid',
  'li_fat_id',
  'dclid',
  'irclickid',
] as const;

/** Attribution fields: last-touch and first-touch (`ft_`) UTMs and click ids, 512 characters each. */
export const WEB_ATTRIBUTION_FIELDS: readonly string[] = [...UTM_KEYS, ...CLICK_ID_KEYS].flatMap((k) => [k, `ft_${k}`]);
export const WEB_ATTRIBUTION_MAX = 512;

type NumberRule = { min: number; max: number; integer: boolean };
const uint = (max: number): NumberRule => ({ min: 0, max, integer: true });
const FLAG = uint(1);
const UINT16 = uint(65_535);
const UINT32 = uint(4_294_967_295);

/** Number fields and the range each is clamped to (integers are rounded). */
export const WEB_NUMBER_FIELDS: Record<string, NumberRule> = {
  is_new_visitor: FLAG,
  session_page_count: UINT32,
  is_bot: FLAG,
  cookies_enabled: FLAG,
  timezone_offset: { min: -32_768, max: 32_767, integer: true },
  screen_width: UINT32,
  screen_height: UINT32,
  screen_color_depth: UINT16,
  viewport_width: UINT32,
  viewport_height: UINT32,
  device_pixel_ratio: { min: 0, max: 1000, integer: false },
  touch_support: UINT16,
  hardware_concurrency: UINT16,
  device_memory: { min: 0, max: 1_000_000, integer: false },
  page_load_time: UINT32,
  dom_content_loaded: UINT32,
  dom_interactive: UINT32,
  dns_lookup_time: UINT32,
  tcp_connection_time: UINT32,
  ttfb: UINT32,
};

export type WebEventInput = {
  /** The SDK's event_id (a UUID): a second event with it is not stored. null: none sent. */
  eventId: string | null;
  /** page_view, custom, identify, or any other type a later SDK sends. */
  eventType: string;
  /** client_timestamp as epoch ms; null when absent or unreadable. */
  clientTsMs: number | null;
  /** Every WEB_TEXT_FIELDS and WEB_ATTRIBUTION_FIELDS key, '' when not sent. */
  text: Record<string, string>;
  /** Every WEB_NUMBER_FIELDS key, 0 when not sent. */
  numbers: Record<string, number>;
};
