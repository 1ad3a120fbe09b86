// GET /api/v1/reporting/campaigns query (spec: "GET /api/v1/reporting/campaigns"). The zod schema
// documents the parameters (OpenAPI); parseReportQuery checks them in this order, each failure with
// its own text: page, limit (422, spec) → dates → active → meta_account_id → platform → search →
// view → sort_field → sort_order → the event lists → active_users (400, texts are ours).
// An empty value means "not given". Enum values are case-insensitive.
import { z } from 'zod';
import { normalizeNetworkCode } from '../../../domain/campaigns/campaign.ts';
import {
  REPORT_VIEWS,
  type ReportInput,
  type ReportPlatform,
  SORT_FIELDS,
  SORT_ORDERS,
  type SortField,
  type SortOrder,
} from '../../../domain/reporting/report-input.ts';
import { charLength } from '../../../lib/validate.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { queryValue } from '../common.ts';
import { anyCaseEnum, trimmedText, upTo } from '../doc-patterns.ts';
import { paginationQuerySchema, parsePagination } from './pagination.ts';
import { isCalendarDate, readEnum, scalar } from './query-values.ts';

export const REPORT_DEFAULT_LIMIT = 10;
export const REPORT_MAX_LIMIT = 100;
export const SEARCH_MAX_CHARS = 500;
export const EVENT_LIST_MAX_NAMES = 100;
/** capture-event refuses longer names, so a longer name can never match and is dropped. */
export const EVENT_NAME_MAX_CHARS = 255;
export const ACTIVE_USERS_MAX_DAYS = 365;
export const ACTIVE_USERS_DEFAULT_DAYS = 7;

const list = (what: string) =>
  z
    .string()
    .optional()
    .meta({
      description: `comma list of ${what}; at most ${EVENT_LIST_MAX_NAMES} distinct names (400 otherwise); a repeated parameter adds to the list; unknown names are dropped`,
    });

// Scalars are trimmed and a blank one counts as absent; enums match in any case.
const scalarEnum = (values: readonly string[]) =>
  z.string().regex(new RegExp(anyCaseEnum(values, { trim: true, empty: true })));
const DATE = '\\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\\d|3[01])';
const date = (description: string) =>
  z
    .string()
    .regex(new RegExp(`^\\s*(?:${DATE})?\\s*$`))
    .optional()
    .meta({
      description: `${description}; YYYY-MM-DD, a real calendar date, inclusive, in the project's timezone; from must not be after to (400)`,
    });

/**
 * Documentation schema of the query (OpenAPI); parseReportQuery reads it itself. Every scalar is
 * trimmed, a blank one is absent, and a repeated one is a 400.
 */
export const reportQuerySchema = paginationQuerySchema(REPORT_DEFAULT_LIMIT, REPORT_MAX_LIMIT).extend({
  from: date('start of the window (alias start_date)'),
  to: date('end of the window (alias end_date)'),
  start_date: date('alias of from (from wins when both are given)'),
  end_date: date('alias of to (to wins when both are given)'),
  active: scalarEnum(['true', 'false'])
    .optional()
    .meta({ description: 'true or false, any case; default: all campaigns' }),
  network: z.string().optional().meta({ description: 'network code: meta, google, apple_search_ads, tiktok, …' }),
  meta_account_id: z
    .string()
    .regex(new RegExp(`^\\s*(?:${upTo(2_147_483_647)})?\\s*$`))
    .optional()
    .meta({ description: 'network account id: an integer from 1 to 2147483647 without leading zeros' }),
  platform: scalarEnum(['ios', 'android']).optional().meta({ description: 'ios or android, any case; default: both' }),
  search: z
    .string()
    .regex(new RegExp(trimmedText(0, SEARCH_MAX_CHARS)))
    .optional()
    .meta({
      description: `name, display id, domain, deeplink or link; literal text, at most ${SEARCH_MAX_CHARS} characters once trimmed`,
    }),
  view: scalarEnum(REPORT_VIEWS)
    .optional()
    .meta({ description: `${REPORT_VIEWS.join(' or ')}, any case; default user_acquisition` }),
  sort_field: scalarEnum(SORT_FIELDS)
    .optional()
    .meta({ description: `${SORT_FIELDS.join(', ')}, any case; default installs` }),
  sort_order: scalarEnum(SORT_ORDERS)
    .optional()
    .meta({ description: `${SORT_ORDERS.join(' or ')}, any case; default descending` }),
  events: list('custom event names (default: all)'),
  payment_events: list('payment types (default: all)'),
  unique_user_events: list('event names or payment types reported with unique_count'),
  cost_per_event: list('event names or payment types given a cost per event'),
  active_users: z
    .string()
    .regex(new RegExp(`^\\s*(?:(?=\\d{1,3}\\s*$)0*${upTo(ACTIVE_USERS_MAX_DAYS)})?\\s*$`))
    .optional()
    .meta({
      description: `days, a whole number from 1 to ${ACTIVE_USERS_MAX_DAYS} (at most 3 digits), default ${ACTIVE_USERS_DEFAULT_DAYS}`,
    }),
});

function readDate(query: unknown, key: string, alias: string): string | null {
  const own = scalar(query, key);
  const [field, value] = own !== undefined ? [key, own] : [alias, scalar(query, alias)];
  if (value === undefined) {
    return null;
  }
  if (!isCalendarDate(value)) {
    throw new ApiError(400, MSG.invalidReportDate(field, value));
  }
  return value;
}

/** A comma list (repeated keys are joined): trimmed, empties and impossible names dropped, deduped. */
function readList(query: unknown, key: string): string[] | null {
  const v = queryValue(query, key);
  if (v === undefined) {
    return null;
  }
  const names = (Array.isArray(v) ? v : [v]).flatMap((s) => String(s).split(',')).map((s) => s.trim());
  const kept = [...new Set(names.filter((s) => s !== ''))];
  if (kept.length > EVENT_LIST_MAX_NAMES) {
    throw new ApiError(400, MSG.tooManyEventNames(key, EVENT_LIST_MAX_NAMES));
  }
  const usable = kept.filter((s) => charLength(s) <= EVENT_NAME_MAX_CHARS && !s.includes('\0'));
  // A list that names nothing (`events=` or `events=,,,`) is the same as no list.
  return kept.length === 0 ? null : usable;
}

function readMetaAccountId(query: unknown): number | null {
  const raw = scalar(query, 'meta_account_id');
  if (raw === undefined) {
    return null;
  }
  if (!/^[1-9]\d{0,9}$/.test(raw) || Number(raw) > 2_147_483_647) {
    throw new ApiError(400, MSG.invalidMetaAccountId(raw));
  }
  return Number(raw);
}

function readActiveUsers(query: unknown): number {
  const raw = scalar(query, 'active_users');
  if (raw === undefined) {
    return ACTIVE_USERS_DEFAULT_DAYS;
  }
  if (!/^\d{1,3}$/.test(raw) || Number(raw) < 1 || Number(raw) > ACTIVE_USERS_MAX_DAYS) {
    throw new ApiError(400, MSG.invalidActiveUsers(raw));
  }
  return Number(raw);
}

function readSearch(query: unknown): string | null {
  const raw = scalar(query, 'search');
  if (raw === undefined) {
    return null;
  }
  if (charLength(raw) > SEARCH_MAX_CHARS) {
    throw new ApiError(400, MSG.searchTooLong(SEARCH_MAX_CHARS));
  }
  return raw;
}

export function parseReportQuery(query: unknown): ReportInput {
  const { page, limit } = parsePagination(query, REPORT_DEFAULT_LIMIT, REPORT_MAX_LIMIT);
  const from = readDate(query, 'from', 'start_date');
  const to = readDate(query, 'to', 'end_date');
  if (from !== null && to !== null && from > to) {
    throw new ApiError(400, MSG.reportDatesReversed);
  }
  const active = readEnum(query, 'active', ['true', 'false', ''] as const, MSG.invalidReportActive) ?? '';
  const network = scalar(query, 'network');
  const metaAccountId = readMetaAccountId(query);
  const platform = readEnum(query, 'platform', ['ios', 'android', ''] as const, MSG.invalidReportPlatform) ?? '';
  const search = readSearch(query);
  const view = readEnum(query, 'view', REPORT_VIEWS, MSG.invalidReportView) ?? 'user_acquisition';
  const sortField = readEnum<SortField>(query, 'sort_field', SORT_FIELDS, MSG.invalidSortField) ?? 'installs';
  const sortOrder = readEnum<SortOrder>(query, 'sort_order', SORT_ORDERS, MSG.invalidSortOrder) ?? 'descending';
  return {
    from,
    to,
    active: active === '' ? null : active === 'true',
    network: network === undefined ? null : normalizeNetworkCode(network),
    metaAccountId,
    platform: platform === '' ? null : (platform.toUpperCase() as ReportPlatform),
    search,
    view,
    sortField,
    sortOrder,
    page,
    limit,
    events: readList(query, 'events'),
    paymentEvents: readList(query, 'payment_events'),
    uniqueUserEvents: readList(query, 'unique_user_events') ?? [],
    costPerEvent: readList(query, 'cost_per_event'),
    activeUsersDays: readActiveUsers(query),
  };
}
