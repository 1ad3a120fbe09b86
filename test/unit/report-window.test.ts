// Report windows (domain/reporting/window.ts). The window's days: a side beyond the ClickHouse Date
// range is clamped, a window wholly outside it is empty (clamped, it would land on the edge day).
// The whole months of a window (wholeMonths): report totals read those from the monthly rollup and
// every other day of the window from the daily table, so the split must cover the window exactly:
// no day twice, none left out. The active_users window ends at the request's `to`, or today.
import { describe, expect, it } from 'vitest';
import {
  activeUsersWindow,
  addDays,
  EMPTY_WINDOW,
  MAX_DAY,
  MIN_DAY,
  reportWindow,
  wholeMonths,
} from '../../src/domain/reporting/window.ts';

describe('report window', () => {
  it.each([
    ['no sides', null, null, { from: MIN_DAY, to: MAX_DAY }],
    ['a window inside the range', '2025-01-01', '2025-01-31', { from: '2025-01-01', to: '2025-01-31' }],
    ['an end past the range ("no end")', '2025-01-01', '9999-12-31', { from: '2025-01-01', to: MAX_DAY }],
    ['a start before the range', '1900-01-01', '1970-01-01', { from: MIN_DAY, to: MIN_DAY }],
    ['a window reaching over both ends', '1000-01-01', '9999-12-31', { from: MIN_DAY, to: MAX_DAY }],
    ['a start on the last day', MAX_DAY, '9999-12-31', { from: MAX_DAY, to: MAX_DAY }],
    ['a window wholly before 1970', '1969-12-01', '1969-12-31', EMPTY_WINDOW],
    ['an open start ending before 1970', null, '1969-12-31', EMPTY_WINDOW],
    ['a window wholly after 2149-06-06', '2150-01-01', '2150-01-31', EMPTY_WINDOW],
    ['an open end starting after 2149-06-06', '2149-06-07', null, EMPTY_WINDOW],
  ])('when it is %s, then its days are %j', (_name, from, to, expected) => {
    expect(reportWindow(from, to)).toEqual(expected);
  });

  it('when the window is empty, then it holds no day and no whole month', () => {
    expect(EMPTY_WINDOW.from > EMPTY_WINDOW.to).toBe(true);
    expect(wholeMonths(EMPTY_WINDOW)).toBeNull();
  });

  it.each([
    ['no `to`', null, { from: '2025-03-14', to: '2025-03-20' }],
    ['a `to` after today', '2150-01-31', { from: '2025-03-14', to: '2025-03-20' }],
    ['a `to` before today', '2025-03-10', { from: '2025-03-04', to: '2025-03-10' }],
    ['a `to` on the first storable day', MIN_DAY, { from: MIN_DAY, to: MIN_DAY }],
    ['a `to` before 1970', '1969-12-31', EMPTY_WINDOW],
  ])('when the active_users window has %s, then it is %j', (_name, to, expected) => {
    expect(activeUsersWindow(to, '2025-03-20', 7)).toEqual(expected);
  });
});

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
