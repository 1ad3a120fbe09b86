// lib/local-time.ts: the attributed-users window (spec: `YYYY-MM-DDThh:mm:ss.SSS`, no zone suffix,
// read in an IANA `timezone`). Catalog §4c: impossible dates, T24:00, :60 seconds, a Z suffix,
// bad zones, and the DST gap / repeated hour, resolved like Temporal's "compatible" rule.
import { describe, expect, it } from 'vitest';
import { parseLocalDateTime, validTimeZone, zonedTimeToUtc } from '../../src/lib/local-time.ts';

const utc = (s: string, zone: string): string => {
  const t = parseLocalDateTime(s);
  if (!t) {
    throw new Error(`not a wall time: ${s}`);
  }
  return new Date(zonedTimeToUtc(t, zone)).toISOString();
};

describe('parseLocalDateTime', () => {
  it('when the value has the spec form, then its parts come back', () => {
    expect(parseLocalDateTime('2024-02-29T23:59:59.999')).toEqual({
      year: 2024,
      month: 2,
      day: 29,
      hour: 23,
      minute: 59,
      second: 59,
      millisecond: 999,
    });
  });

  it('when the fraction is shorter or absent, then it is read as milliseconds', () => {
    expect(parseLocalDateTime('2024-01-02T03:04:05.5')?.millisecond).toBe(500);
    expect(parseLocalDateTime('2024-01-02T03:04:05')?.millisecond).toBe(0);
  });

  it.each([
    ['2024-02-30T00:00:00.000', 'February 30th'],
    ['2023-02-29T00:00:00.000', 'February 29th of a common year'],
    ['1900-02-29T00:00:00.000', 'February 29th of a century year'],
    ['2024-04-31T00:00:00.000', 'April 31st'],
    ['2024-13-01T00:00:00.000', 'month 13'],
    ['2024-00-10T00:00:00.000', 'month 0'],
    ['2024-01-00T00:00:00.000', 'day 0'],
    ['2024-01-01T24:00:00.000', 'hour 24'],
    ['2024-01-01T23:60:00.000', 'minute 60'],
    ['2024-01-01T23:59:60.000', 'a leap second'],
    ['2024-01-01T00:00:00.000Z', 'a Z suffix'],
    ['2024-01-01T00:00:00.000+05:30', 'an offset'],
    ['2024-01-01 00:00:00.000', 'a space for T'],
    ['2024-01-01', 'a date alone'],
    ['2024-1-1T00:00:00.000', 'unpadded fields'],
    ['2024-01-01T00:00:00.0000', 'four fraction digits'],
    ['20240101T000000', 'the basic format'],
    ['', 'an empty string'],
  ])('when the value is %s (%s), then it is refused', (value) => {
    expect(parseLocalDateTime(value)).toBeUndefined();
  });

  it('when February 29th falls in a leap century, then it is accepted', () => {
    expect(parseLocalDateTime('2000-02-29T00:00:00.000')).toBeDefined();
  });
});

describe('validTimeZone', () => {
  it.each(['UTC', 'America/New_York', 'america/new_york', 'Asia/Kolkata', 'Etc/GMT+5', 'Australia/Lord_Howe'])(
    'when the zone is %s, then it is accepted',
    (zone) => {
      expect(validTimeZone(zone)).toBe(zone);
    },
  );

  it.each([
    'Mars/Base',
    'UTC+25',
    '../../etc/passwd',
    '+05:30',
    'Z',
    'America/',
    '/UTC',
    'A'.repeat(65),
    'IST',
    'PST',
    'jst',
  ])('when the zone is %s, then it is refused', (zone) => {
    expect(validTimeZone(zone)).toBeUndefined();
  });
});

describe('zonedTimeToUtc', () => {
  it('when the zone is UTC, then the wall time is the instant', () => {
    expect(utc('2024-06-01T12:34:56.789', 'UTC')).toBe('2024-06-01T12:34:56.789Z');
  });

  it('when the zone has a half-hour offset, then it is applied', () => {
    expect(utc('2024-06-01T12:00:00.000', 'Asia/Kolkata')).toBe('2024-06-01T06:30:00.000Z');
  });

  it('when the wall time falls in a spring-forward gap, then it moves forward by the gap', () => {
    // 02:30 does not exist on 2024-03-10 in New York: it is read as 03:30 EDT.
    expect(utc('2024-03-10T02:30:00.000', 'America/New_York')).toBe('2024-03-10T07:30:00.000Z');
    expect(utc('2024-03-31T02:30:00.000', 'Europe/Berlin')).toBe('2024-03-31T01:30:00.000Z');
    // Lord Howe moves by 30 minutes: 02:15 is read as 02:45 (+11:00).
    expect(utc('2024-10-06T02:15:00.000', 'Australia/Lord_Howe')).toBe('2024-10-05T15:45:00.000Z');
  });

  it('when the wall time falls in a repeated hour, then the earlier instant wins', () => {
    // 01:30 happens twice on 2024-11-03 in New York: EDT (-4) first.
    expect(utc('2024-11-03T01:30:00.000', 'America/New_York')).toBe('2024-11-03T05:30:00.000Z');
    expect(utc('2024-10-27T02:30:00.000', 'Europe/Berlin')).toBe('2024-10-27T00:30:00.000Z');
    expect(utc('2024-04-07T01:45:00.000', 'Australia/Lord_Howe')).toBe('2024-04-06T14:45:00.000Z');
  });

  it('when the wall time is just outside a transition, then the plain offset applies', () => {
    expect(utc('2024-03-10T01:59:59.999', 'America/New_York')).toBe('2024-03-10T06:59:59.999Z');
    expect(utc('2024-03-10T03:00:00.000', 'America/New_York')).toBe('2024-03-10T07:00:00.000Z');
    expect(utc('2024-11-03T02:00:00.000', 'America/New_York')).toBe('2024-11-03T07:00:00.000Z');
  });

  it('when the year is at either end of the form, then an instant still comes back', () => {
    expect(utc('0001-01-01T00:00:00.000', 'UTC')).toBe('0001-01-01T00:00:00.000Z');
    expect(utc('9999-12-31T23:59:59.999', 'Pacific/Kiritimati')).toBe('9999-12-31T09:59:59.999Z');
  });
});
