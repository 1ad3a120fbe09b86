// Readers of v1 query parameters shared by the reporting and audience-export parsers: one scalar
// value, a calendar date, an enum read in any case. Their 400 texts come from the caller.
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { queryValue } from '../common.ts';

/** One value of a scalar parameter; '' counts as absent, a repeated key is refused. */
export function scalar(query: unknown, key: string): string | undefined {
  const v = queryValue(query, key);
  if (Array.isArray(v)) {
    throw new ApiError(400, MSG.repeatedReportParameter(key));
  }
  const t = v?.trim();
  return t ? t : undefined;
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** YYYY-MM-DD naming a day that exists (year 1 on). */
export function isCalendarDate(v: string): boolean {
  const m = DATE_RE.exec(v);
  if (!m) {
    return false;
  }
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0-99 as 1900-1999, and refused 0050-01-01.
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  return y >= 1 && date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

/** An enum parameter in any case (answered lower-case); undefined when absent, else 400 `bad(raw)`. */
export function readEnum<T extends string>(
  query: unknown,
  key: string,
  allowed: readonly T[],
  bad: (v: string) => string,
): T | undefined {
  const raw = scalar(query, key);
  if (raw === undefined) {
    return undefined;
  }
  const v = raw.toLowerCase();
  if (!(allowed as readonly string[]).includes(v)) {
    throw new ApiError(400, bad(raw));
  }
  return v as T;
}
