// Time helpers: ClickHouse DateTime64(3) text in UTC, and the project-local calendar day.
const dayFormatters = new Map<string, Intl.DateTimeFormat>();

/** 'YYYY-MM-DD HH:MM:SS.mmm' in UTC, as ClickHouse DateTime64(3, 'UTC') reads it. */
export function formatChTime(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

/** The calendar day of `ms` in an IANA zone, 'YYYY-MM-DD'. */
export function localDay(ms: number, timeZone: string): string {
  let f = dayFormatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    dayFormatters.set(timeZone, f);
  }
  return f.format(new Date(ms));
}

/** ISO 8601 without fractional seconds (iOS's default ISO8601DateFormatter rejects them). */
export function isoSeconds(d: Date): string {
  return `${d.toISOString().slice(0, 19)}Z`;
}
