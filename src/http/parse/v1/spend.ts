// PUT /api/v1/spend body: {rows: [...]}, 1 to 10,000 rows. Only the envelope is checked here (a bad
// envelope is a 400); each row is validated by the domain (domain/spend/spend-row.ts), and a bad row
// is rejected with its index and reason while the others are stored. The zod schemas document the
// row for OpenAPI.
import { z } from 'zod';
import { MAX_SPEND_ROWS } from '../../../domain/spend/spend-row.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { asRecord } from '../common.ts';

const optionalId = (what: string) =>
  z
    .string()
    .max(256)
    .optional()
    .meta({ description: `${what}; absent or "" for none (part of the key)` });
const optionalName = (what: string) =>
  z
    .string()
    .max(500)
    .optional()
    .meta({ description: `${what}; absent or "" keeps the stored name` });
const count = (what: string) =>
  z
    .union([z.number().int().min(0), z.string().regex(/^\d+$/)])
    .optional()
    .meta({ description: `${what}, a whole number >= 0; absent is 0` });

export const spendRowSchema = z.object({
  day: z.string().meta({ description: 'YYYY-MM-DD, the spend day in the project time zone' }),
  campaign_display_id: z.string().meta({ description: 'display id of a campaign of the project' }),
  ad_set_id: optionalId('ad set id'),
  ad_set_name: optionalName('ad set name'),
  creative_id: optionalId('ad creative id'),
  creative_name: optionalName('ad creative name'),
  keyword_id: optionalId('search keyword id'),
  keyword_name: optionalName('search keyword'),
  network: z
    .string()
    .optional()
    .meta({ description: "network code (letters, digits, spaces, underscores; upper-cased); default the campaign's" }),
  amount: z
    .union([z.number().min(0), z.string().regex(/^\d+(\.\d{1,9})?$/)])
    .meta({ description: "spend in the project's currency, 0 to 1e20, at most 9 decimals" }),
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
