// localDay (lib/time.ts) keeps the day of every 15-minute span asked for, per zone. It must answer exactly
// what the zone's calendar says for any instant: across DST changes (also at midnight, as
// America/Sao_Paulo had them), half-hour and 45-minute offsets, and in any call order.
import { describe, expect, it } from 'vitest';
import { formatChTime, localDay } from '../../src/lib/time.ts';

const ZONES = [
  'UTC',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'Pacific/Chatham',
  'Australia/Lord_Howe',
  'America/New_York',
  'America/Sao_Paulo',
  'Europe/London',
];

/** One formatter per zone: making one per call was most of this file's time (30 s+ on a busy CI machine). */
const calendars = new Map<string, Intl.DateTimeFormat>();
function reference(ms: number, timeZone: string): string {
  let calendar = calendars.get(timeZone);
  if (!calendar) {
    calendar = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    calendars.set(timeZone, calendar);
  }
  return calendar.format(new Date(ms));
}

describe('localDay', () => {
  it('when instants step through DST changes and midnights in many zones, then every day equals the calendar', () => {
    // Around Sao Paulo's midnight changes (2018-11-04 spring, 2019-02-17 fall) and the 2026 changes elsewhere.
    // 1900: local mean time offsets in seconds (Kolkata +05:53:28), so 15-minute spans cross midnights.
    const starts = [
      Date.UTC(1900, 0, 1),
      Date.UTC(2018, 10, 2),
      Date.UTC(2019, 1, 15),
      Date.UTC(2026, 2, 7),
      Date.UTC(2026, 9, 23),
    ];
    for (const zone of ZONES) {
      for (const start of starts) {
        const instants: number[] = [];
        for (let ms = start; ms < start + 4 * 86_400_000; ms += 7 * 60_000 + 13_000) {
          instants.push(ms);
        }
        // In order (cache hits), then shuffled by a fixed stride (cache misses).
        const shuffled = instants.map((_, i) => instants[(i * 7919) % instants.length] as number);
        // Compared first, described only when wrong: a message built per instant cost as much as the check.
        const wrong = [...instants, ...shuffled]
          .filter((ms) => localDay(ms, zone) !== reference(ms, zone))
          .map((ms) => `${zone} ${new Date(ms).toISOString()}: ${localDay(ms, zone)} != ${reference(ms, zone)}`);
        expect(wrong).toEqual([]);
      }
    }
  });

  it('when more spans are asked for than the cache keeps, then it starts over and every day stays right', () => {
    // 200,000 spans is the cap (lib/time.ts): ask for 200,100 distinct ones, then the first again.
    const start = Date.UTC(2001, 0, 1);
    const span = 900_000;
    for (let i = 0; i < 200_100; i++) {
      localDay(start + i * span, 'Asia/Kolkata');
    }
    for (const i of [0, 1, 95, 96, 199_999, 200_099]) {
      const ms = start + i * span + 60_000;
      expect(localDay(ms, 'Asia/Kolkata'), new Date(ms).toISOString()).toBe(reference(ms, 'Asia/Kolkata'));
    }
  });

  it('when a time is formatted for ClickHouse, then it is UTC with milliseconds and no zone letter', () => {
    expect(formatChTime(Date.UTC(2026, 10, 22, 5, 6, 7, 89))).toBe('2026-11-22 05:06:07.089');
    expect(formatChTime(0)).toBe('1970-01-01 00:00:00.000');
  });
});
