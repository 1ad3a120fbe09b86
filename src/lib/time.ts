// Time helpers: ClickHouse DateTime64(3) text in UTC, and the project-local calendar day.
const dayFormatters = new Map<string, Intl.DateTimeFormat>();

/** 'YYYY-MM-DD HH:MM:SS.mmm' in UTC, as ClickHouse DateTime64(3, 'UTC') reads it. */
export function formatChTime(ms: number): string {
  const iso = new Date(ms).toISOString();
  // Years past 9999 come with a sign and more digits: kept as they are (ClickHouse refuses them).
  return iso.length === 24 ? `${iso.slice(0, 10)} ${iso.slice(11, 23)}` : iso.replace('T', ' ').replace('Z', '');
}

const QUARTER_HOUR_MS = 900_000;
/**
 * Per zone, the day of each 15-minute span asked for: a fact batch asks for the install days of
 * thousands of installs spread over months. Emptied past SPAN_DAYS_MAX spans (a year is 35,040).
 */
const spanDays = new Map<string, Map<number, string>>();
let spanDaysSize = 0;
const SPAN_DAYS_MAX = 200_000;

function formatDay(ms: number, timeZone: string): string {
  let f = dayFormatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    dayFormatters.set(timeZone, f);
  }
  return f.format(new Date(ms));
}

/**
 * The calendar day of `ms` in an IANA zone, 'YYYY-MM-DD'. Formatting is the costly part of a
 * click or a fact row, so the day of a 15-minute span is kept per zone, but only when the span
 * starts and ends on the same day (a zone's midnight inside the span is never cached).
 */
export function localDay(ms: number, timeZone: string): string {
  const span = Math.floor(ms / QUARTER_HOUR_MS);
  let days = spanDays.get(timeZone);
  const hit = days?.get(span);
  if (hit !== undefined) {
    return hit;
  }
  if (!Number.isFinite(span)) {
    return formatDay(ms, timeZone);
  }
  // Equal ends mean one day throughout: where a DST change steps the day back, the repeated part
  // lasts longer than a span.
  const start = span * QUARTER_HOUR_MS;
  const first = formatDay(start, timeZone);
  if (formatDay(start + QUARTER_HOUR_MS - 1, timeZone) !== first) {
    return formatDay(ms, timeZone);
  }
  if (spanDaysSize >= SPAN_DAYS_MAX) {
    spanDays.clear();
    spanDaysSize = 0;
    days = undefined;
  }
  if (!days) {
    days = new Map();
    spanDays.set(timeZone, days);
  }
  days.set(span, first);
  spanDaysSize++;
  return first;
}

/** ISO 8601 without fractional seconds (iOS's default ISO8601DateFormatter rejects them). */
export function isoSeconds(d: Date): string {
  return `${d.toISOString().slice(0, 19)}Z`;
}
