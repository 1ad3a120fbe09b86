// attributed-users query (spec: "GET /api/v1/attributed-users"). Checks run in this order, the
// first failure answering: display_id (422 `Required parameter missing.`), timezone (400), the two
// timestamps (400), then page / limit (422). A repeated parameter counts as invalid (a repeated
// display_id as missing: no single campaign is named); an empty timestamp or timezone as absent.
import { z } from 'zod';
import type { ListAttributedUsersInput } from '../../../domain/users/list-attributed-users.ts';
import { type LocalDateTime, parseLocalDateTime, validTimeZone } from '../../../lib/local-time.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { queryValue } from '../common.ts';
import { paginationQuerySchema, parsePagination } from './pagination.ts';

// Documentation schema (OpenAPI); parseAttributedUsers reads the query itself. Values are trimmed,
// and a blank timestamp or timezone counts as absent.
const LOCAL_TIME =
  '\\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\\d|3[01])T(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d{1,3})?';
const timestamp = z
  .string()
  .regex(new RegExp(`^\\s*(?:${LOCAL_TIME})?\\s*$`))
  .optional()
  .meta({
    description:
      'YYYY-MM-DDThh:mm:ss with an optional fraction of 1 to 3 digits, without a zone suffix, a real calendar day, read in `timezone`; inclusive; trimmed, blank means absent. 400 `Invalid timestamp format.` otherwise',
  });

export const attributedUsersQuerySchema = paginationQuerySchema(50, 1000).extend({
  display_id: z
    .string()
    .regex(/\S/)
    .meta({ description: 'campaign display id (trimmed); 422 `Required parameter missing.` when absent or blank' }),
  start_timestamp: timestamp,
  end_timestamp: timestamp,
  timezone: z
    .string()
    .regex(/^\s*(?:[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*)?\s*$/)
    .optional()
    .meta({
      description:
        "IANA zone of the two timestamps (at most 64 characters once trimmed, a zone the runtime knows; ICU's legacy ids such as IST or PST are not zone names), default UTC; blank means absent; 400 `Invalid timezone format.` otherwise. A wall time skipped by DST moves forward by the gap; a repeated one takes the earlier instant",
    }),
});

function present(query: unknown, key: string, invalid: ApiError): string | undefined {
  const v = queryValue(query, key);
  if (Array.isArray(v)) {
    throw invalid;
  }
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

function timestampOf(query: unknown, key: string): LocalDateTime | null {
  const invalid = new ApiError(400, MSG.invalidTimestamp);
  const v = present(query, key, invalid);
  if (v === undefined) {
    return null;
  }
  const t = parseLocalDateTime(v);
  if (!t) {
    throw invalid;
  }
  return t;
}

export function parseAttributedUsers(query: unknown): ListAttributedUsersInput {
  const displayId = present(query, 'display_id', new ApiError(422, MSG.requiredParameterMissing));
  if (displayId === undefined) {
    throw new ApiError(422, MSG.requiredParameterMissing);
  }
  const rawZone = present(query, 'timezone', new ApiError(400, MSG.invalidTimezone));
  const timezone = rawZone === undefined ? 'UTC' : validTimeZone(rawZone);
  if (timezone === undefined) {
    throw new ApiError(400, MSG.invalidTimezone);
  }
  const start = timestampOf(query, 'start_timestamp');
  const end = timestampOf(query, 'end_timestamp');
  const { page, limit } = parsePagination(query, 50, 1000);
  return { displayId, start, end, timezone, page, limit };
}
