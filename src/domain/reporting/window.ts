// The report's metrics window: inclusive project-local days. An absent side is unbounded; any day is
// clamped into what a ClickHouse Date holds (1970-01-01 .. 2149-06-06), so `to=9999-12-31` means
// "no end" instead of an error.
import { localDay } from '../../lib/time.ts';

export const MIN_DAY = '1970-01-01';
export const MAX_DAY = '2149-06-06';

export type ReportWindow = { from: string; to: string };

const DAY_MS = 86_400_000;

export const minDay = (a: string, b: string): string => (a < b ? a : b);
export const maxDay = (a: string, b: string): string => (a > b ? a : b);
const clamp = (d: string): string => minDay(maxDay(d, MIN_DAY), MAX_DAY);

/** 'YYYY-MM-DD' + n days (n may be negative), clamped to the Date range. */
export function addDays(day: string, n: number): string {
  const ms = Date.parse(`${day}T00:00:00Z`) + n * DAY_MS;
  const d = new Date(Number.isFinite(ms) ? ms : 0);
  return clamp(d.toISOString().slice(0, 10).padStart(10, '0'));
}

/** Zero-padded years sort as text; years before 1970 clamp to MIN_DAY. */
export function reportWindow(from: string | null, to: string | null): ReportWindow {
  return { from: from === null ? MIN_DAY : clamp(from), to: to === null ? MAX_DAY : clamp(to) };
}

/** Today in the project's zone. */
export function projectToday(nowMs: number, timezone: string): string {
  return localDay(nowMs, timezone);
}
