// The whole months of a report window (domain/reporting/window.ts wholeMonths): report totals read
// those from the monthly rollup and every other day of the window from the daily table, so the
// split must cover the window exactly: no day twice, none left out.
import { describe, expect, it } from 'vitest';
import { addDays, MAX_DAY, MIN_DAY, reportWindow, wholeMonths } from '../../src/domain/reporting/window.ts';

describe('whole months of a report window', () => {
  it.each([
    ['a calendar year', '2026-01-01', '2026-12-31', { from: '2026-01-01', to: '2026-12-31' }],
    ['the last 365 days', '2025-11-23', '2026-11-22', { from: '2025-12-01', to: '2026-10-31' }],
    ['February of a common year', '2026-02-01', '2026-02-28', { from: '2026-02-01', to: '2026-02-28' }],
    ['February of a leap year without its 29th', '2024-02-01', '2024-02-28', null],
    ['December into January', '2025-12-15', '2026-01-31', { from: '2026-01-01', to: '2026-01-31' }],
    ['one December', '2025-12-01', '2025-12-31', { from: '2025-12-01', to: '2025-12-31' }],
    ['days inside one month', '2026-03-05', '2026-03-20', null],
    ['the whole Date range', MIN_DAY, MAX_DAY, { from: '1970-01-01', to: '2149-05-31' }],
    ['the last days of the Date range', '2149-06-01', MAX_DAY, null],
  ])('when the window is %s, then its whole months are %j', (_name, from, to, expected) => {
    expect(wholeMonths({ from, to })).toEqual(expected);
  });

  it('when windows of 1 to 400 days end on days across a year, then the split matches months counted day by day', () => {
    for (let end = 0; end < 366; end += 5) {
      const to = addDays('2026-01-01', end);
      for (let days = 1; days <= 400; days += 11) {
        const w = reportWindow(addDays(to, 1 - days), to);
        // Brute force: a month is whole when its first and last days both fall in the window.
        const whole: string[] = [];
        for (let d = w.from; d <= w.to; d = addDays(d, 1)) {
          const last = addDays(
            addDays(`${d.slice(0, 8)}28`, 4)
              .slice(0, 8)
              .concat('01'),
            -1,
          );
          if (d.endsWith('-01') && last <= w.to) {
            whole.push(d, last);
          }
        }
        const expected = whole.length > 0 ? { from: whole[0], to: whole[whole.length - 1] } : null;
        expect(wholeMonths(w), `${w.from}..${w.to}`).toEqual(expected);
      }
    }
  });
});
