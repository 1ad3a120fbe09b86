// PUT /api/v1/spend body: {rows: [...]}, 1 to 10,000 rows. Only the envelope is checked here (a bad
// envelope is a 400); each row is validated by the domain (domain/spend/spend-row.ts), and a bad row
// is rejected with its index and reason while the others are stored. The zod schemas document the
// row for OpenAPI.
import { z } from 'zod';
import { MAX_SPEND_COUNT, MAX_SPEND_ROWS } from '../../../domain/spend/spend-row.ts';
import { MAX_AMOUNT } from '../../../lib/money.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { asRecord } from '../common.ts';
import { NOT_BLANK } from '../doc-patterns.ts';

// The row's checks (domain/spend/spend-row.ts): text limits count characters, NUL is refused.
const NO_NUL = '^[^\\u0000]*$';
const optionalId = (what: string) =>
  z
    .string()
    .max(256)
    .regex(new RegExp(NO_NUL))
    .optional()
    .meta({ description: `${what}; at most 256 characters, no NUL; absent or "" for none (part of the key)` });
const optionalName = (what: string) =>
  z
    .string()
    .max(500)
    .regex(new RegExp(NO_NUL))
    .optional()
    .meta({ description: `${what}; at most 500 characters, no NUL; absent or "" keeps the stored name` });
// spendAmount: trimmed, at most 29 whole digits (leading zeros included) and 9 decimals, 0 to 1e20.
const AMOUNT_TEXT = `^\\s*(?:0{0,9}\\d{1,20}(?:\\.\\d{1,9})?|0{0,8}1${'0'.repeat(20)}(?:\\.0{1,9})?)\\s*$`;
const count = (what: string) =>
  z
    .union([z.number().int().min(0).max(MAX_SPEND_COUNT), z.string().regex(/^\d+$/)])
    .optional()
    .meta({ description: `${what}, a whole number from 0 to 1e12 (as a number or digits); absent is 0` });

export const spendRowSchema = z.strictObject({
  day: z.string().meta({ description: 'YYYY-MM-DD, the spend day in the project time zone' }),
  campaign_display_id: z
    .string()
    .max(256)
    .regex(new RegExp(`^[^\\u0000]*${NOT_BLANK}[^\\u0000]*$`))
    .meta({ description: 'display id of a campaign of the project; at most 256 characters, no NUL, not blank' }),
  ad_set_id: optionalId('ad set id'),
  ad_set_name: optionalName('ad set name'),
  creative_id: optionalId('ad creative id'),
  creative_name: optionalName('ad creative name'),
  keyword_id: optionalId('search keyword id'),
  keyword_name: optionalName('search keyword'),
  network: z
    .string()
    .max(64)
    .regex(/^\s*[A-Za-z0-9_ ]*\s*$/)
    .optional()
    .meta({ description: "network code (letters, digits, spaces, underscores; upper-cased); default the campaign's" }),
  amount: z.union([z.number().min(0).max(MAX_AMOUNT), z.string().regex(new RegExp(AMOUNT_TEXT))]).meta({
    description:
      "spend in the project's currency, 0 to 1e20 (the product's maximum; more is refused), at most 9 decimals",
  }),
  impressions: count('impressions'),
  clicks: count('clicks reported by the network'),
});

export const spendBodySchema = z.object({
  rows: z.array(spendRowSchema).min(1).max(MAX_SPEND_ROWS).meta({
    description:
      'a row replaces the stored values of its day × campaign × ad set × creative × keyword × network; the last row of a key wins',
  }),
});

/** The body's rows, unvalidated (the domain validates each). */
export function parseSpendBody(body: unknown): unknown[] {
  const rows = asRecord(body).rows;
  if (!Array.isArray(rows) || rows.length === 0 || rows.length > MAX_SPEND_ROWS) {
    throw new ApiError(400, MSG.spendRowsInvalid);
  }
  return rows;
}
