// The report's metrics window: inclusive project-local days. An absent side is unbounded; a side
// beyond what a ClickHouse Date holds (1970-01-01 .. 2149-06-06) is clamped into it, so
// `to=9999-12-31` means "no end" instead of an error. A window lying wholly outside that range holds
// no storable day: clamping both of its sides would land them on the edge day and count its facts,
// so it becomes EMPTY_WINDOW instead.
import { localDay } from '../../lib/time.ts';

export const MIN_DAY = '1970-01-01';
export const MAX_DAY = '2149-06-06';

export type ReportWindow = { from: string; to: string };

/** No day at all: `from` after `to`, so every `BETWEEN {from} AND {to}` matches nothing. */
export const EMPTY_WINDOW: ReportWindow = Object.freeze({ from: MAX_DAY, to: MIN_DAY });

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

/** Zero-padded years sort as text; a side outside the Date range is clamped, a window outside it is empty. */
export function reportWindow(from: string | null, to: string | null): ReportWindow {
  if ((from !== null && from > MAX_DAY) || (to !== null && to < MIN_DAY)) {
    return { ...EMPTY_WINDOW };
  }
  return { from: from === null ? MIN_DAY : clamp(from), to: to === null ? MAX_DAY : clamp(to) };
}

/**
 * The `days` days ending at `to` (or today, when `to` is absent or later): the active_users window.
 * It is the request's `to`, not the clamped window's, so a window wholly before 1970 gets no days
 * (not 1970-01-01) and one after 2149 ends today, as any future window does.
 */
export function activeUsersWindow(to: string | null, today: string, days: number): ReportWindow {
  const end = to === null ? today : minDay(to, today);
  return end < MIN_DAY ? { ...EMPTY_WINDOW } : { from: addDays(end, 1 - days), to: end };
}

/** First day of the month after `day`'s ('YYYY-MM-DD'), or undefined past the Date range. */
function nextMonthStart(day: string): string | undefined {
  const y = Number(day.slice(0, 4));
  const m = Number(day.slice(5, 7));
  const next =
    m === 12 ? `${String(y + 1).padStart(4, '0')}-01-01` : `${day.slice(0, 5)}${String(m + 1).padStart(2, '0')}-01`;
  return next <= MAX_DAY ? next : undefined;
}

/**
 * The whole months inside the window, as days (the first day of the first whole month, the last
 * day of the last), or null when it holds none. Report totals read these from the monthly rollup
 * and only the days outside them from the daily table.
 */
export function wholeMonths(w: ReportWindow): ReportWindow | null {
  const first = w.from.endsWith('-01') ? w.from : nextMonthStart(w.from);
  const afterTo = nextMonthStart(w.to);
  const last = afterTo !== undefined && addDays(afterTo, -1) === w.to ? w.to : addDays(`${w.to.slice(0, 8)}01`, -1);
  return first !== undefined && first <= last ? { from: first, to: last } : null;
}

/** Today in the project's zone. */
export function projectToday(nowMs: number, timezone: string): string {
  return localDay(nowMs, timezone);
}
