// Arguments of the MCP tools: zod schemas (their JSON Schema is each tool's inputSchema in tools/list)
// and the conversions to the inputs the HTTP API's own parsers take, so a tool refuses what the
// matching endpoint refuses, with the same text. At call time only the schema's keys and JSON types
// are checked (argumentTypes): its finer rules (a date's form, page ≥ 1, limit ≤ 1000, a non-blank
// id) are the endpoints' own, which answer them with their texts and statuses, and read a blank
// value as not given.
import { z } from 'zod';
import { MIN_DAY, projectToday } from '../../../domain/reporting/window.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { parseReportQuery } from '../../parse/v1/reporting.ts';

const day = (what: string) =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .optional()
    .describe(`${what}: a calendar date YYYY-MM-DD, inclusive, in the project's time zone`);

export const windowSchema = z.strictObject({
  from: day('first day of the window; omit for no start'),
  to: day('last day of the window; omit for no end'),
});

export const listCampaignsSchema = z.strictObject({
  page: z.int().min(1).optional().describe('page number, default 1'),
  limit: z.int().min(1).max(1000).optional().describe('campaigns per page, 1 to 1000, default 100'),
  filter: z.enum(['ACTIVE', 'INACTIVE', 'ALL']).optional().describe('status filter, default ALL'),
  channel: z.string().max(256).optional().describe('GOOGLE, META, TIKTOK, APPLE_SEARCH_ADS or an affiliate code'),
  domain: z.string().max(256).optional().describe('one of the project link domains'),
  link: z.string().max(2048).optional().describe('a campaign link, ?c=<display_id> or /<display_id> form'),
});

export const lookupSchema = z.strictObject({
  user_id: z.string().min(1).max(256).optional().describe('your user id, as sent to trigger / signup'),
  device_identifier: z.string().min(1).max(256).optional().describe('GAID on Android, IDFA on iOS'),
  install_instance_id: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .describe("the SDK's install id; used only when neither user_id nor device_identifier is given"),
});

export const billingSchema = z.strictObject({
  month: z
    .string()
    .regex(/^\d{4}-\d{2}$/)
    .optional()
    .describe("a month YYYY-MM in the project's time zone; default the current month"),
  from: day('first day of a period instead of a month; omit for the first install'),
  to: day('last day of a period instead of a month; omit for today'),
});

export const noArguments = z.strictObject({});

/** The arguments a tool runs with: the published schema's keys, typed only as string or number. */
export type CallArgs<S extends z.ZodObject> = {
  [K in keyof z.infer<S>]?: NonNullable<z.infer<S>[K]> extends number ? number : string;
};

function typeOnly(field: z.ZodType): z.ZodType {
  const optional = field instanceof z.ZodOptional;
  const inner = optional ? (field as z.ZodOptional).unwrap() : field;
  let checked: z.ZodType;
  if (inner instanceof z.ZodString || inner instanceof z.ZodEnum) {
    checked = z.string();
  } else if (inner instanceof z.ZodNumber) {
    checked = z.number();
  } else {
    throw new Error(`no call-time check for a tool argument of type ${inner._zod.def.type}`);
  }
  return optional ? checked.optional() : checked;
}

/** The call-time check of a published schema: unknown keys and wrong JSON types, nothing finer. */
export function argumentTypes(s: z.ZodObject): z.ZodObject {
  return z.strictObject(Object.fromEntries(Object.entries(s.shape).map(([k, v]) => [k, typeOnly(v)])));
}

/** Only the given values, as the query object the HTTP parsers read (strings, absent when undefined). */
export function asQuery(args: Record<string, string | number | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(args).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]])));
}

/** The reporting endpoint's window checks (calendar dates, from ≤ to) and texts. */
export function parseWindow(args: CallArgs<typeof windowSchema>): { from: string | null; to: string | null } {
  const q = parseReportQuery(asQuery({ from: args.from, to: args.to }));
  return { from: q.from, to: q.to };
}

function monthPeriod(month: string): { from: string; to: string } {
  const y = Number(month.slice(0, 4));
  const m = Number(month.slice(5, 7));
  if (!/^\d{4}-\d{2}$/.test(month) || m < 1 || m > 12 || y < 1970 || y > 2149) {
    throw new ApiError(400, MSG.mcpInvalidMonth(month));
  }
  const last = new Date(0);
  last.setUTCFullYear(y, m, 0); // day 0 of the next month: the month's last day
  return { from: `${month}-01`, to: last.toISOString().slice(0, 10) };
}

/**
 * The billing period: a month (default the project's current one), or from..to (default first
 * install..today). A blank value is not given, as reporting reads from= and to=. A period that ends
 * before it starts (from after today, or to before the first install) is reporting's from > to 400.
 */
export function parseBillingPeriod(
  args: CallArgs<typeof billingSchema>,
  nowMs: number,
  timezone: string,
): { month: string | null; from: string; to: string } {
  const today = projectToday(nowMs, timezone);
  const asked = args.month?.trim() || undefined;
  const w = parseWindow(args);
  if (asked !== undefined && (w.from !== null || w.to !== null)) {
    throw new ApiError(400, MSG.mcpBillingPeriod);
  }
  if (w.from === null && w.to === null) {
    const month = asked ?? today.slice(0, 7);
    return { month, ...monthPeriod(month) };
  }
  const period = { month: null, from: w.from ?? MIN_DAY, to: w.to ?? today };
  if (period.from > period.to) {
    throw new ApiError(400, MSG.reportDatesReversed);
  }
  return period;
}
