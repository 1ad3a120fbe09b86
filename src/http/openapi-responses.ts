// Response schemas of /openapi.json, written from the presenters (http/present) and the routes'
// answers, and the answers every route family shares (body refusals, store failures). A schema
// names every key the route sends; keys that only some answers carry are optional. Objects stay
// open (extra keys allowed) so an added field does not break a client that validates answers.
import { z } from 'zod';
import type { Operation } from './openapi.ts';

/** `{msg, status}`: every error (errors.ts sendError); component `Error` of the document. */
export const ERROR_ENVELOPE_JSON = {
  type: 'object',
  properties: {
    msg: { type: 'string', description: 'the text of the error (the spec text where it fixes one)' },
    status: { type: 'integer', description: 'the HTTP status' },
  },
  required: ['msg', 'status'],
} as const;

/** The success envelope (reply.ts ok): `{msg, status, data}`, status equal to the HTTP status. */
export const envelope = (data: z.ZodType) => z.object({ msg: z.string(), status: z.int(), data });

const iso = z.string().meta({ description: 'ISO 8601 timestamp' });
const count = z.int().min(0);

export const UNSUPPORTED_MEDIA_TYPE =
  '`Unsupported content type. Send application/json.`: a body sent with another Content-Type';

/** Failures errors.ts answers for any route that reads a store. */
export const SERVER_FAILURES: Record<'500' | '503', string> = {
  '500': '`Internal server error`: an unexpected failure, logged with the request id; retry with backoff',
  '503':
    '`Service temporarily unavailable. Please retry later.`: Postgres is unreachable or restarting (Retry-After: 5), or a write kept losing to concurrent writes of the same rows (Retry-After: 1)',
};

/**
 * What every /api/v1 route can answer besides its own texts: 401 (the family's text), 429, the
 * body refusals of a route that takes a body (Fastify parses one on every method but GET), 500, 503.
 */
export function v1Errors(o: { auth401: string; body: boolean; bodyLimit?: string }): Record<string, string> {
  return {
    '401': `missing or invalid server key (\`service-key\` or \`linkrunner-key\` header): \`${o.auth401}\``,
    ...(o.body
      ? {
          '413': `\`Request body too large.\`: over ${o.bodyLimit ?? 'BODY_LIMIT_V1_BYTES (256 KiB by default)'}`,
          '415': UNSUPPORTED_MEDIA_TYPE,
        }
      : {}),
    '429': '`Rate limit exceeded. Please try again later.` (per source IP or per server key); Retry-After: 1',
    ...SERVER_FAILURES,
  };
}

export const DATA_401 = 'Unauthorized access.';
export const CRUD_401 = 'Server key missing!` or `Server key invalid!';

/** An /api/v1 operation: its own answers, over the auth, rate-limit, body and store failures. */
export const v1Op = (op: Operation, auth401: string, extra: { bodyLimit?: string } = {}): Operation => ({
  ...op,
  responses: { ...v1Errors({ auth401, body: op.method !== 'get', ...extra }), ...op.responses },
});

export const storeListingSchema = z.object({
  store_listing_id: z.string(),
  name: z.string(),
  platform: z.string().meta({ description: 'IOS or ANDROID' }),
});

/** presentCampaignSummary: the edit answer. */
export const campaignSummarySchema = z.looseObject({
  display_id: z.string(),
  name: z.string(),
  created_at: iso,
  update_at: iso,
  google: z.boolean(),
  meta: z.boolean(),
  meta_campaign_id: z.string().nullable(),
  meta_web_to_app: z.boolean(),
  active: z.boolean(),
  default_link: z.boolean(),
  attributed_users: count,
});

/** presentCampaign: a row of the list. */
export const campaignRowSchema = campaignSummarySchema.extend({
  link: z.string(),
  shareable_link: z.string(),
  domain: z.string().nullable(),
  store_listings: z.array(storeListingSchema),
});

/** presentCreatedCampaign: the create answer. */
export const createdCampaignSchema = z.looseObject({
  id: z.int(),
  name: z.string(),
  link: z.string(),
  website: z.string().nullable().meta({ description: 'null for short-link campaigns' }),
  display_id: z.string(),
  created_at: iso,
  android_web_redirect: z.string().nullable(),
  ios_web_redirect: z.string().nullable(),
  domain: z.string().nullable(),
  store_listings: z.array(storeListingSchema),
});

/** `page` echoes the page sent as a JSON number (a double beyond 2^53 - 1, README "Paging"). */
export const paginationSchema = z.object({ total: count, pages: count, page: z.number(), limit: count });

export const attributedUserSchema = z.looseObject({
  attributed_at: iso,
  ad_channel: z.enum(['GOOGLE', 'META', 'TIKTOK']).nullable(),
  campaign_display_id: z.string(),
  campaign_name: z.string(),
  link: z.string().nullable(),
  installed_at: iso.nullable(),
  store_click_at: iso.nullable(),
  meta_ad_id: z.string(),
  ad_creative_id: z.string(),
  ad_creative_name: z.string(),
  ad_set_id: z.string(),
  ad_set_name: z.string(),
  publisher_platform: z.string().nullable(),
  platform_position: z.string().nullable(),
  user_data: z
    .looseObject({
      id: z.string().nullable(),
      name: z.string().nullable(),
      email: z.string().nullable(),
      phone: z.string().nullable(),
      device_data: z.looseObject({ api_level: z.number() }).meta({
        description:
          'brand, base_os, version, build_id, bundle_id, device_id, android_id, device_name, device_type, build_number, connectivity, manufacturer, application_name ("" when unknown) and api_level (0 when unknown)',
      }),
    })
    .meta({ description: 'plus the other user fields the app sent' }),
});

const nullableText = z.string().nullable();

/** The deeplink of an attributed install (attribution-data, get-attribution-result). */
const attributedDeeplink = nullableText.meta({
  description:
    "the campaign's deeplink, with the query parameters of the campaign link that won the install appended (referral codes: every parameter the service does not read itself, URL-encoded, at most 20 and 1,000 characters; a name the deeplink already has keeps the deeplink's value); null when the campaign has no deeplink, when organic, or while pending",
});

/** getAttributionResult (get-attribution-result). */
export const attributionResultSchema = z.looseObject({
  campaign_name: nullableText,
  display_id: nullableText,
  deeplink: attributedDeeplink,
  domain_name: nullableText,
  ad_set_id: nullableText,
  ad_set_name: nullableText,
  ad_creative_id: nullableText,
  ad_creative_name: nullableText,
  keyword_id: nullableText,
  keyword_name: nullableText,
  ad_network: nullableText,
  attribution_type: z.enum(['ORGANIC', 'INORGANIC']),
  match: z.looseObject({}).meta({ description: 'the decision record (README "Attribution")' }),
});

/** read-attribution.ts CampaignData. */
const clientCampaignDataSchema = z.looseObject({
  id: z.string().meta({ description: 'the display id' }),
  name: z.string(),
  type: z.literal('INORGANIC'),
  ad_network: nullableText,
  group_name: nullableText,
  asset_group_name: nullableText,
  asset_name: nullableText,
  installed_at: iso,
  store_click_at: iso.nullable(),
  ad_set_id: nullableText,
  ad_set_name: nullableText,
  ad_creative_id: nullableText,
  ad_creative_name: nullableText,
});

/** attribution-data's data: PENDING (with processing: true) until decided, then cached 24 h. */
export const attributionDataSchema = z.looseObject({
  deeplink: attributedDeeplink,
  campaign_data: clientCampaignDataSchema.nullable().meta({ description: 'null when organic or pending' }),
  attribution_source: z.string().meta({ description: 'PENDING, ORGANIC, INORGANIC or the network code' }),
  processing: z.literal(true).optional().meta({ description: 'present (true) only while pending' }),
});

/** init's bare answer (spec: no envelope). */
export const initAnswerSchema = z.object({
  processing_id: z.string(),
  status: z.literal('accepted'),
  message: z.string(),
  success: z.literal(true),
});

/** SKAN values on iOS installs once evaluated (present/skan.ts). */
export const skanFields = {
  fine_conversion_value: z.int().min(0).max(63).optional(),
  coarse_conversion_value: z.enum(['low', 'medium', 'high']).optional(),
  lock_postback: z.boolean().optional(),
};

/** data: {message} (+ SKAN values where the route adds them). */
export const messageData = (withSkan = false) =>
  z.looseObject({ message: z.string(), ...(withSkan ? skanFields : {}) });

export const removedData = z.looseObject({ message: z.string(), removed: count });

/** presentUserDeletion. */
export const userDeletionSchema = z.looseObject({
  user_id: z.string(),
  install_instance_ids: z.array(z.string()),
  removed: z.looseObject({
    postgres: z.record(z.string(), count).meta({
      description: 'app_users, installs, payments, fact_outbox, fact_dead_letters',
    }),
    clickhouse: z.record(z.string(), count).meta({ description: 'rows removed per ClickHouse table' }),
    cache: z.looseObject({ attribution_data: count }),
  }),
  remaining: z.looseObject({ clickhouse: count }),
});

/** presentReport; each row's fields are defined in README "Reporting". */
export const reportDataSchema = z.looseObject({
  campaigns: z.array(
    z.looseObject({
      id: z.int(),
      active: z.boolean(),
      created_at: iso,
      display_id: z.string(),
      link: z.string(),
      name: z.string(),
    }),
  ),
  pagination: paginationSchema,
  display_currency: z.string().optional(),
  view: z.string().optional(),
});

export const skanSchemaAnswer = z.looseObject({ version: z.int(), created_at: iso, schema: z.looseObject({}) });
