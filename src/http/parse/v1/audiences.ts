// GET /api/v1/audiences/export query (not in the spec; product notes "Remarketing": CSV segment
// downloads). The zod schema documents the parameters (OpenAPI); parseAudienceQuery checks them in
// this order, each failure a 400 with its own text: event / payment_type → from → to → from after to
// → format → inactive_days → inactive_by → platform → phone_country_code. A blank value is absent,
// a repeated one is refused, enum values match in any case. The CLI builds the same query from its
// flags, so both surfaces accept the same segments.
import { z } from 'zod';
import {
  AUDIENCE_EVENT_MAX_CHARS,
  AUDIENCE_FORMATS,
  type AudienceFormat,
  type AudienceInput,
  INACTIVE_BY,
  INACTIVE_DAYS_MAX,
  type InactiveBy,
} from '../../../domain/audiences/audience-input.ts';
import { normalizeNetworkCode } from '../../../domain/campaigns/campaign.ts';
import { PAYMENT_TYPES } from '../../../domain/events/capture-payment.ts';
import { storable } from '../../../lib/storable.ts';
import { charLength } from '../../../lib/validate.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { anyCaseEnum, upTo } from '../doc-patterns.ts';
import { isCalendarDate, readEnum, scalar } from './query-values.ts';

const DATE = '\\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\\d|3[01])';
const anyCaseOf = (values: readonly string[]) => new RegExp(anyCaseEnum(values, { trim: true, empty: false }));

/** Documentation schema of the query (OpenAPI); parseAudienceQuery reads the query itself. */
export const audienceQuerySchema = z.object({
  event: z
    .string()
    .optional()
    .meta({
      description: `custom event name, trimmed, matched against the stored names trimmed (at most ${AUDIENCE_EVENT_MAX_CHARS} characters); give event or payment_type`,
    }),
  payment_type: z
    .string()
    .regex(anyCaseOf(['any', ...PAYMENT_TYPES]))
    .optional()
    .meta({
      description:
        'completed payments of this type (any case), or any: every purchase (FUNDS_WITHDRAWAL and SUBSCRIPTION_CANCELLED/REFUNDED/BILLING_ISSUE left out, as revenue does); give event or payment_type',
    }),
  from: z
    .string()
    .regex(new RegExp(`^\\s*${DATE}\\s*$`))
    .meta({ description: "first day of the window, YYYY-MM-DD, a real calendar date, in the project's time zone" }),
  to: z
    .string()
    .regex(new RegExp(`^\\s*${DATE}\\s*$`))
    .meta({ description: 'last day of the window (inclusive), YYYY-MM-DD; not before from (400)' }),
  format: z.string().regex(anyCaseOf(AUDIENCE_FORMATS)).meta({
    description: 'meta (email,phone,madid), google (Email,Phone), google_device_ids (Mobile Device ID) or plain',
  }),
  inactive_days: z
    .string()
    .regex(new RegExp(`^\\s*(?:${upTo(INACTIVE_DAYS_MAX)})?\\s*$`))
    .optional()
    .meta({ description: `only users without activity in the last N × 24 hours, N from 1 to ${INACTIVE_DAYS_MAX}` }),
  inactive_by: z
    .string()
    .regex(new RegExp(anyCaseEnum(INACTIVE_BY, { trim: true, empty: true })))
    .optional()
    .meta({
      description:
        'app_open (default: no app open on any of the user’s installs) or action (not done again); needs inactive_days',
    }),
  campaign: z
    .string()
    .optional()
    .meta({ description: 'a campaign display id of the project (404 when none): facts attributed to it' }),
  channel: z.string().optional().meta({
    description:
      'network code of the facts’ attribution (META, GOOGLE, TIKTOK, …; case-insensitive), or ORGANIC; an unknown code matches nothing',
  }),
  platform: z
    .string()
    .regex(new RegExp(anyCaseEnum(['ios', 'android'], { trim: true, empty: true })))
    .optional()
    .meta({ description: 'ios or android, any case; default both' }),
  phone_country_code: z
    .string()
    .regex(/^\s*(?:[1-9]\d{0,2})?\s*$/)
    .optional()
    .meta({
      description: 'calling code (1 to 3 digits) for phones stored without one; without it such phones are not used',
    }),
});

function readDate(query: unknown, key: 'from' | 'to'): string {
  const v = scalar(query, key);
  if (v === undefined) {
    throw new ApiError(400, MSG.audienceDateRequired(key));
  }
  if (!isCalendarDate(v)) {
    throw new ApiError(400, MSG.invalidReportDate(key, v));
  }
  return v;
}

function readAction(query: unknown): AudienceInput['action'] {
  const event = scalar(query, 'event');
  const type = scalar(query, 'payment_type');
  if (event !== undefined && type !== undefined) {
    throw new ApiError(400, MSG.audienceActionBoth);
  }
  if (event !== undefined) {
    if (charLength(event) > AUDIENCE_EVENT_MAX_CHARS) {
      throw new ApiError(400, MSG.audienceEventTooLong(AUDIENCE_EVENT_MAX_CHARS));
    }
    return { kind: 'event', name: storable(event).trim() };
  }
  if (type === undefined) {
    throw new ApiError(400, MSG.audienceActionRequired);
  }
  const t = type.toUpperCase();
  if (t !== 'ANY' && !(PAYMENT_TYPES as readonly string[]).includes(t)) {
    throw new ApiError(400, MSG.audienceInvalidPaymentType(type));
  }
  return { kind: 'payment', type: t === 'ANY' ? null : t };
}

function readInactive(query: unknown): AudienceInput['inactive'] {
  const raw = scalar(query, 'inactive_days');
  const days = raw === undefined ? undefined : Number(raw);
  if (raw !== undefined && (!/^[1-9]\d{0,3}$/.test(raw) || days === undefined || days > INACTIVE_DAYS_MAX)) {
    throw new ApiError(400, MSG.audienceInvalidInactiveDays(raw, INACTIVE_DAYS_MAX));
  }
  const by = readEnum<InactiveBy>(query, 'inactive_by', INACTIVE_BY, MSG.audienceInvalidInactiveBy);
  if (days === undefined) {
    if (by !== undefined) {
      throw new ApiError(400, MSG.audienceInactiveByWithoutDays);
    }
    return null;
  }
  return { days, by: by ?? 'app_open' };
}

export function parseAudienceQuery(query: unknown): AudienceInput {
  const action = readAction(query);
  const from = readDate(query, 'from');
  const to = readDate(query, 'to');
  if (from > to) {
    throw new ApiError(400, MSG.reportDatesReversed);
  }
  const format = readEnum<AudienceFormat>(query, 'format', AUDIENCE_FORMATS, MSG.audienceInvalidFormat);
  if (format === undefined) {
    throw new ApiError(400, MSG.audienceFormatRequired);
  }
  const inactive = readInactive(query);
  const platform = readEnum(query, 'platform', ['ios', 'android'] as const, MSG.invalidReportPlatform);
  const code = scalar(query, 'phone_country_code');
  if (code !== undefined && !/^[1-9]\d{0,2}$/.test(code)) {
    throw new ApiError(400, MSG.audienceInvalidCountryCode(code));
  }
  const campaign = scalar(query, 'campaign');
  const channel = scalar(query, 'channel');
  return {
    action,
    from,
    to,
    inactive,
    campaign: campaign ?? null,
    channel: channel === undefined ? null : normalizeNetworkCode(channel),
    platform: platform === undefined ? null : (platform.toUpperCase() as 'IOS' | 'ANDROID'),
    format,
    phoneCountryCode: code ?? null,
  };
}
