// page / limit for /api/v1 lists (spec: 422 for an invalid page, an invalid limit, a limit above max).
import { z } from 'zod';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { queryValue } from '../common.ts';

export type Page = { page: number; limit: number };

export const paginationQuerySchema = (defaultLimit: number, max: number) =>
  z.object({
    page: z
      .string()
      .regex(/^[1-9]\d*$/)
      .optional()
      .meta({ description: 'positive integer, default 1' }),
    limit: z
      .string()
      .regex(/^\d+$/)
      .optional()
      .meta({ description: `integer from 1 to ${max}, default ${defaultLimit}` }),
  });

const MAX_PAGE = 1_000_000;

export function parsePagination(query: unknown, defaultLimit: number, max: number): Page {
  const rawPage = queryValue(query, 'page');
  const rawLimit = queryValue(query, 'limit');
  let page = 1;
  if (rawPage !== undefined) {
    const v = String(rawPage);
    if (typeof rawPage !== 'string' || !/^[1-9]\d*$/.test(v) || Number(v) > MAX_PAGE) {
      throw new ApiError(422, MSG.invalidPage(v));
    }
    page = Number(v);
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
