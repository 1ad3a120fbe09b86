// Wall-clock timestamps in an IANA zone → UTC instants, with Intl only (no tz database of our own).
// spec (attributed-users): `YYYY-MM-DDThh:mm:ss.SSS` without a zone suffix, read in `timezone`.
// A wall time that a DST change skips or repeats is resolved like Temporal's "compatible"
// disambiguation: in a gap (spring forward) the time moves forward by the gap's length
// (02:30 on a New York spring-forward day is 03:30 EDT); in a repeated hour (fall back) the
// earlier instant wins (01:30 on a New York fall-back day is 01:30 EDT, not EST).
import { isIanaZoneName } from './validate.ts';

export type LocalDateTime = {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
};

// The fraction may have 1 to 3 digits; no `Z`, no offset, no space instead of `T`.
const LOCAL_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?$/;

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

// Day 0 of the next month is the last day of this one; 2000 is a leap year, 2001 is not.
const daysInMonth = (year: number, month: number): number =>
  new Date(Date.UTC(isLeap(year) ? 2000 : 2001, month, 0)).getUTCDate();

/** The parts of a `YYYY-MM-DDThh:mm:ss.SSS` string, or undefined when it is not a real wall time. */
export function parseLocalDateTime(value: string): LocalDateTime | undefined {
  const m = LOCAL_RE.exec(value);
  if (!m) {
    return undefined;
  }
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const millisecond = Number((m[7] ?? '0').padEnd(3, '0'));
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    return undefined;
  }
  if (hour > 23 || minute > 59 || second > 59) {
    return undefined;
  }
  return { year, month, day, hour, minute, second, millisecond };
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The zone when it is a known IANA identifier (case-insensitive, as Intl reads it), else undefined. */
export function validTimeZone(value: string): string | undefined {
  // Only names in the zone list reach Intl: not ICU's legacy ids (IST: India, Israel or Ireland?),
  // nor offsets such as "+05:30", which newer Node versions accept as zones, nor paths.
  if (!isIanaZoneName(value, true)) {
    return undefined;
  }
  try {
    formatterFor(value);
    return value;
  } catch {
    return undefined;
  }
}

/** Milliseconds since the epoch of a wall time read as if it were UTC (any year 0000-9999). */
function wallAsUtc(t: LocalDateTime): number {
  const d = new Date(0);
  d.setUTCFullYear(t.year, t.month - 1, t.day);
  d.setUTCHours(t.hour, t.minute, t.second, t.millisecond);
  return d.getTime();
}

// Before 1900 zones ran on local mean time and Intl's year/era parts get awkward; no attribution
// data is that old, so offsets there are read at 1900-01-01.
const OFFSET_FLOOR_MS = Date.UTC(1900, 0, 1);

/** The zone's offset from UTC (ms, east positive) at instant `ms`. */
function offsetAt(ms: number, timeZone: string): number {
  const at = Math.max(ms, OFFSET_FLOOR_MS);
  const whole = at - (((at % 1000) + 1000) % 1000);
  const parts: Record<string, number> = {};
  for (const p of formatterFor(timeZone).formatToParts(new Date(whole))) {
    if (p.type !== 'literal') {
      parts[p.type] = Number(p.value);
    }
  }
  const wall = Date.UTC(
    parts.year ?? 1970,
    (parts.month ?? 1) - 1,
    parts.day ?? 1,
    parts.hour ?? 0,
    parts.minute ?? 0,
    parts.second ?? 0,
  );
  return wall - whole;
}

const DAY_MS = 86_400_000;

/** The UTC instant (ms) of a wall time in `timeZone`, DST gaps and repeats resolved as above. */
export function zonedTimeToUtc(t: LocalDateTime, timeZone: string): number {
  const wall = wallAsUtc(t);
  // The offsets a day before and a day after bracket at most one transition (zones change a few
  // times a year), so the instant is wall − one of them.
  const before = offsetAt(wall - DAY_MS, timeZone);
  const after = offsetAt(wall + DAY_MS, timeZone);
  const fits = [before, after].filter((o) => offsetAt(wall - o, timeZone) === o).map((o) => wall - o);
  if (fits.length > 0) {
    return Math.min(...fits); // a repeated hour: the earlier instant
  }
  return wall - before; // a skipped hour: shifted forward by the gap
}
