// page / limit for /api/v1 lists (spec: 422 for an invalid page, an invalid limit, a limit above max).
import { z } from 'zod';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { queryValue } from '../common.ts';
import { upTo } from '../doc-patterns.ts';

export type Page = { page: number; limit: number };

/** Documentation schema of page / limit (OpenAPI); parsePagination checks the same. */
export const paginationQuerySchema = (defaultLimit: number, max: number) =>
  z.object({
    page: z
      .string()
      .regex(/^[1-9]\d*$/)
      .optional()
      .meta({ description: 'positive integer, default 1; 422 otherwise' }),
    limit: z
      .string()
      .regex(new RegExp(`^0*${upTo(max)}$`))
      .optional()
      .meta({ description: `integer from 1 to ${max}, default ${defaultLimit}; 422 otherwise` }),
  });

/**
 * Any positive integer is a page (spec); one past the end is an empty page. A page is echoed as a
 * JSON number, so one above 2^53 - 1 becomes the nearest double (what a JavaScript client reads for
 * the number it sent) and one too long for a double the largest finite one, never Infinity (null in
 * JSON). The list domains cap the offset they send to SQL (lib/page-offset.ts).
 */
function pageNumber(digits: string): number {
  return Math.min(Number(digits), Number.MAX_VALUE);
}

export function parsePagination(query: unknown, defaultLimit: number, max: number): Page {
  const rawPage = queryValue(query, 'page');
  const rawLimit = queryValue(query, 'limit');
  let page = 1;
  if (rawPage !== undefined) {
    const v = String(rawPage);
    if (typeof rawPage !== 'string' || !/^[1-9]\d*$/.test(v)) {
      throw new ApiError(422, MSG.invalidPage(v));
    }
    page = pageNumber(v);
  }
  let limit = defaultLimit;
  if (rawLimit !== undefined) {
    const v = String(rawLimit);
    if (typeof rawLimit !== 'string' || !/^\d+$/.test(v) || Number(v) < 1) {
      throw new ApiError(422, MSG.invalidLimit(v, max));
    }
    if (Number(v) > max) {
      throw new ApiError(422, MSG.limitExceeds(v, max));
    }
    limit = Number(v);
  }
  return { page, limit };
}
