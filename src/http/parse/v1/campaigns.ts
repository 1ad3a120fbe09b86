// Request schemas of the campaign endpoints. The same zod schemas parse requests and feed the
// OpenAPI document; each check carries the spec's text and runs in the spec's order.
import { z } from 'zod';
import type { CreateCampaignInput } from '../../../domain/campaigns/create-campaign.ts';
import type { EditCampaignInput } from '../../../domain/campaigns/edit-campaign.ts';
import type { ListCampaignsInput } from '../../../domain/campaigns/list-campaigns.ts';
import { isSafeDeeplink, isSafeWebUrl } from '../../../lib/validate.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { asRecord, parseWith, queryValue } from '../common.ts';
import { anyCase, anyCaseEnum, trimmedText } from '../doc-patterns.ts';
import { paginationQuerySchema, parsePagination } from './pagination.ts';

const NAME_MAX = 500;
const STORE_LISTING_IDS_MAX = 20;

// Fixed paths the service host answers itself: a campaign's short link /<id> must not shadow them.
const RESERVED_DISPLAY_IDS = new Set(['healthz', 'readyz', 'docs', 'api', 'openapi', 'well-known']);
const DISPLAY_ID_RE = /^[A-Za-z0-9_-]{1,64}$/;
// Postgres text cannot hold NUL; refused here so the insert never fails with a 500.
const noNul = (v: string): boolean => !v.includes('\0');
// The other control characters (Cc: U+0001-U+001F, DEL, U+0080-U+009F) inside a name: a list, a
// report row or a CSV shows them as nothing or breaks a line. Checked after the trim, so a tab or
// newline at either end is trimmed like a space; NUL is refused first, with its own text.
const noControl = (v: string): boolean => !/\p{Cc}/u.test(v);

// The `.meta` patterns below only shape the OpenAPI document (zod never parses with them): the part
// of a refine that JSON Schema can state; the description says the rest.
const URL_CHAR = '[^\\u0000-\\u0020\\u007f-\\u009f\\\\]';
const WEB_URL_PATTERN = `^${anyCase('http')}[Ss]?://[^/\\u0000-\\u0020\\u007f-\\u009f\\\\]${URL_CHAR}*$`;
const DEEPLINK_PATTERN = '^[A-Za-z][A-Za-z0-9+.-]{0,63}://[^\\u0000-\\u0020\\u007f-\\u009f]*$';
const RESERVED_PATTERN = `^(?!(?:${[...RESERVED_DISPLAY_IDS].map(anyCase).join('|')})$)${DISPLAY_ID_RE.source.slice(1)}`;

const webUrl = (field: string) =>
  z
    .string({ error: MSG.invalidUrlField(field) })
    .refine(isSafeWebUrl, { error: MSG.invalidUrlField(field) })
    .meta({ pattern: WEB_URL_PATTERN, maxLength: 2048 })
    .nullish()
    .meta({
      description:
        'absolute http(s) URL with a host name or IPv4 address, at most 2048 characters; no credentials, whitespace, control characters, backslash or %0A / %0D',
    });

/**
 * The campaign name as the document states it: the parsers trim it first, then want 1 to 500
 * characters without NUL (zod's JSON Schema would put the lengths on the untrimmed text).
 */
export const campaignNameDocSchema = z
  .string()
  .regex(new RegExp(trimmedText(1, NAME_MAX, { noNul: true })))
  .meta({ description: `trimmed, then 1 to ${NAME_MAX} characters; no NUL or other control characters` });

export const createCampaignBodySchema = z.object({
  name: z
    .string({ error: MSG.nameRequired })
    .trim()
    .min(1, { error: MSG.nameRequired })
    .max(NAME_MAX, { error: MSG.nameTooLong(NAME_MAX) })
    .refine(noNul, { error: MSG.invalidRequestParameters })
    .refine(noControl, { error: MSG.nameControlChars }),
  deeplink: z
    .string({ error: MSG.invalidDeeplink })
    .refine(isSafeDeeplink, { error: MSG.invalidDeeplink })
    .meta({ pattern: DEEPLINK_PATTERN, maxLength: 2048 })
    .nullish()
    .meta({
      description:
        'http(s) URL (as link_for_desktop_users) or app link (myapp://path), at most 2048 characters; javascript:, data:, file:, blob:, about:, vbscript:, filesystem: and view-source: are refused',
    }),
  link_for_desktop_users: webUrl('link_for_desktop_users'),
  android_web_redirect: webUrl('android_web_redirect'),
  ios_web_redirect: webUrl('ios_web_redirect'),
  custom_display_id: z
    .string({ error: MSG.customDisplayIdInvalid })
    .regex(DISPLAY_ID_RE, { error: MSG.customDisplayIdInvalid })
    .refine((id) => !RESERVED_DISPLAY_IDS.has(id.toLowerCase()), { error: MSG.displayIdReserved })
    .meta({ pattern: RESERVED_PATTERN })
    .nullish()
    .meta({
      description: `unique across projects (a deleted campaign's id included); random when absent; not a fixed path (${[...RESERVED_DISPLAY_IDS].join(', ')}, any case)`,
    }),
  is_shortlink: z.boolean({ error: MSG.isShortlinkNotBoolean }).nullish(),
  domain: z
    .string({ error: MSG.fieldNotString('domain') })
    .nullish()
    .meta({ description: "one of the project's domains; default its primary domain" }),
  store_listing_ids: z
    .array(z.string({ error: MSG.storeListingIdsInvalid }).min(1, { error: MSG.storeListingIdsInvalid }), {
      error: MSG.storeListingIdsInvalid,
    })
    .max(STORE_LISTING_IDS_MAX, { error: MSG.storeListingIdsTooMany(STORE_LISTING_IDS_MAX) })
    .nullish()
    .meta({ description: "the project's store listing ids, at most one per platform" }),
  ad_network: z
    .string({ error: MSG.adNetworkInvalid })
    .regex(/^[A-Za-z0-9_ ]{1,64}$/, { error: MSG.adNetworkInvalid })
    .nullish()
    .meta({ description: 'extension: the ad network or affiliate the campaign runs on (META, GOOGLE, TIKTOK, …)' }),
});

const orUndefined = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v);

export function parseCreateCampaign(body: unknown): CreateCampaignInput {
  const b = parseWith(createCampaignBodySchema, asRecord(body));
  return {
    name: b.name,
    deeplink: orUndefined(b.deeplink),
    linkForDesktopUsers: orUndefined(b.link_for_desktop_users),
    androidWebRedirect: orUndefined(b.android_web_redirect),
    iosWebRedirect: orUndefined(b.ios_web_redirect),
    customDisplayId: orUndefined(b.custom_display_id),
    isShortlink: orUndefined(b.is_shortlink),
    domain: orUndefined(b.domain),
    storeListingIds: orUndefined(b.store_listing_ids),
    adNetwork: orUndefined(b.ad_network),
  };
}

export const editCampaignBodySchema = z.object({
  name: z
    .string({ error: MSG.nameEmpty })
    .trim()
    .min(1, { error: MSG.nameEmpty })
    .max(NAME_MAX, { error: MSG.nameTooLong(NAME_MAX) })
    .refine(noNul, { error: MSG.invalidRequestParameters })
    .refine(noControl, { error: MSG.nameControlChars })
    .optional(),
  active: z.boolean({ error: MSG.activeNotBoolean }).optional(),
});

export const displayIdParamsSchema = z.object({ display_id: z.string().meta({ description: 'campaign display id' }) });

export function parseDisplayId(params: unknown): string {
  const raw = (params as Record<string, unknown> | undefined)?.display_id;
  const displayId = typeof raw === 'string' ? raw.trim() : '';
  if (!displayId) {
    throw new ApiError(400, MSG.displayIdRequired);
  }
  return displayId;
}

export function parseEditCampaign(params: unknown, body: unknown): EditCampaignInput {
  const displayId = parseDisplayId(params);
  const b = asRecord(body);
  if (b.name === undefined && b.active === undefined) {
    throw new ApiError(400, MSG.needNameOrActive);
  }
  const parsed = parseWith(editCampaignBodySchema, b);
  return { displayId, name: parsed.name, active: parsed.active };
}

const FILTERS = ['ACTIVE', 'INACTIVE', 'ALL'] as const;

/** Documentation schema (OpenAPI); parseListCampaigns reads the query itself. */
export const listCampaignsQuerySchema = paginationQuerySchema(100, 1000).extend({
  filter: z
    .string()
    .regex(new RegExp(anyCaseEnum(FILTERS, { trim: false, empty: true })))
    .optional()
    .meta({ description: 'ACTIVE, INACTIVE or ALL in any case; default (and empty) ALL' }),
  channel: z
    .string()
    .optional()
    .meta({ description: 'GOOGLE, META, TIKTOK, APPLE_SEARCH_ADS or an affiliate code; case-insensitive' }),
  domain: z.string().optional().meta({ description: 'a domain name of the project; empty means no domain filter' }),
  link: z
    .string()
    .optional()
    .meta({ description: 'a campaign link, ?c=<display_id> or /<display_id> form; empty means no link filter' }),
});

function singleString(query: unknown, key: string): string | undefined {
  const v = queryValue(query, key);
  if (Array.isArray(v)) {
    throw new ApiError(400, MSG.invalidRequestParameters);
  }
  return v;
}

/** A filter value; blank (`domain=`, `link=%20`) means no filter, as an empty channel or filter does. */
function filterString(query: unknown, key: string): string | undefined {
  const v = singleString(query, key);
  return v === undefined || v.trim() === '' ? undefined : v;
}

export function parseListCampaigns(query: unknown): ListCampaignsInput {
  const { page, limit } = parsePagination(query, 100, 1000);
  const rawFilter = singleString(query, 'filter');
  const filter = (
    rawFilter === undefined || rawFilter === '' ? 'ALL' : rawFilter.toUpperCase()
  ) as ListCampaignsInput['filter'];
  if (!(FILTERS as readonly string[]).includes(filter)) {
    throw new ApiError(400, MSG.invalidFilter(rawFilter ?? ''));
  }
  return {
    filter,
    channel: singleString(query, 'channel'),
    domain: filterString(query, 'domain'),
    link: filterString(query, 'link'),
    page,
    limit,
  };
}
