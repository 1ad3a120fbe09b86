// domain/reporting pure parts: number formatting (the only formatter), LIKE escaping, exact decimal
// sums, ratio definitions (never a division by zero), sort order, windows and cohort cutoffs.
import { describe, expect, it } from 'vitest';
import { cohortCutoff, daywiseRevenue, retentionRatios, zeroCohortCounts } from '../../src/domain/reporting/cohorts.ts';
import { addDecimal, fromNano, toNano } from '../../src/domain/reporting/decimal.ts';
import {
  DASH,
  formatCount,
  formatMoney,
  formatMultiplier,
  formatPercent,
  formatRatio,
} from '../../src/domain/reporting/format.ts';
import { conversion, costPer, ratio, roas, sortValues, zeroTotals } from '../../src/domain/reporting/metrics.ts';
import { containsPattern, escapeLike } from '../../src/domain/reporting/search.ts';
import { compareForReport } from '../../src/domain/reporting/sort.ts';
import { addDays, reportWindow } from '../../src/domain/reporting/window.ts';

describe('format', () => {
  it('when counts are large, then they get en-US thousands separators', () => {
    expect(formatCount(0)).toBe('0');
    expect(formatCount(3201)).toBe('3,201');
    expect(formatCount(1234567890123)).toBe('1,234,567,890,123');
    expect(formatCount('18446744073709551615')).toBe('18,446,744,073,709,551,615');
  });

  it('when money is formatted, then the currency symbol and minor digits of display_currency are used, exactly', () => {
    expect(formatMoney('12540.5', 'USD')).toBe('$12,540.50');
    expect(formatMoney('1234.5', 'EUR')).toBe('€1,234.50');
    expect(formatMoney('1234.5', 'JPY')).toBe('¥1,235');
    expect(formatMoney('0.99', 'INR')).toBe('₹0.99');
    expect(formatMoney('12345678901234567890.125', 'USD')).toBe('$12,345,678,901,234,567,890.13');
    expect(formatMoney('-5', 'USD')).toBe('-$5.00');
    expect(formatMoney('-0.001', 'USD')).toBe('$0.00');
    expect(formatMoney(1 / 3, 'GBP')).toBe('£0.33');
  });

  it('when the currency code is not ISO-shaped, then the code prefixes a plain number', () => {
    expect(formatMoney('1234.5', 'XX1')).toBe('XX1 1,234.50');
  });

  it('when ratios are formatted, then percentages and multipliers have 2 decimals and undefined is "-"', () => {
    expect(formatPercent(0.125)).toBe('12.50%');
    expect(formatPercent(12.5)).toBe('1,250.00%');
    expect(formatMultiplier(2.345)).toBe('2.35x');
    expect(formatRatio(undefined, formatPercent)).toBe(DASH);
    expect(formatRatio(1 / 3, formatPercent)).toBe('33.33%');
  });
});

describe('search', () => {
  it('when the text has LIKE wildcards or the escape character, then they are escaped', () => {
    expect(escapeLike('50%_off\\x')).toBe('50\\%\\_off\\\\x');
    expect(containsPattern('%')).toBe('%\\%%');
  });
});

describe('decimal', () => {
  it('when decimals are added, then the sum is exact in nano-units', () => {
    expect(addDecimal('0.1', '0.2')).toBe('0.3');
    expect(addDecimal('12.5', '-12.5')).toBe('0');
    expect(fromNano(toNano('-0.000000001'))).toBe('-0.000000001');
    expect(addDecimal('99999999999999999999.999999999', '0.000000001')).toBe('100000000000000000000');
  });
});

describe('metrics', () => {
  const t = { ...zeroTotals(), installs: 4, reinstalls: 1, reengagements: 1, signups: 2, revenue: '30', spend: '20' };

  it('when denominators are zero, then ratios are undefined, never Infinity or NaN', () => {
    expect(ratio(1, 0)).toBeUndefined();
    expect(ratio(0, 0)).toBeUndefined();
    expect(roas(zeroTotals())).toBeUndefined();
    expect(costPer('10', 0)).toBeUndefined();
    expect(conversion(zeroTotals(), 'user_acquisition')).toBeUndefined();
  });

  it('when the view changes, then conversion changes its denominator', () => {
    expect(conversion(t, 'user_acquisition')).toBe(0.5);
    expect(conversion(t, 'retargeting')).toBe(1);
    expect(roas(t)).toBe(1.5);
    expect(costPer(t.spend, t.installs)).toBe('5');
  });

  it('when money is divided, then the cost is exact to the nano-unit, rounded half away from zero', () => {
    // Through a float, 12345678901234567.89 over one install came out as …568.
    expect(costPer('12345678901234567.89', 1)).toBe('12345678901234567.89');
    expect(costPer('10', 3)).toBe('3.333333333');
    expect(costPer('20', 3)).toBe('6.666666667');
    expect(costPer('0.000000005', 2)).toBe('0.000000003');
    expect(costPer('-0.000000005', 2)).toBe('-0.000000003');
    expect(costPer('99999999999999999999999999999.999999999', 7)).toBe('14285714285714285714285714285.714285714');
  });

  it('when a campaign is iOS-only, then its hidden metrics sort as "-"', () => {
    const v = sortValues(t, 'user_acquisition', new Date(0), true);
    expect(v).toMatchObject({ revenue: undefined, signups: undefined, roas: undefined, conversion: undefined });
    expect(v).toMatchObject({ installs: 4, spend: 20_000_000_000n, clicks: 0 });
  });
});

describe('sort', () => {
  const row = (id: number, roas: number | undefined, created: number) => ({
    id,
    createdAt: new Date(created),
    values: { ...sortValues(zeroTotals(), 'user_acquisition', new Date(created), false), roas },
  });

  it('when values are undefined, then they go last in both orders, and ties go to the newest', () => {
    const rows = [row(1, undefined, 1), row(2, 2, 2), row(3, 1, 3), row(4, undefined, 4), row(5, 1, 5)];
    const ids = (order: 'ascending' | 'descending') => [...rows].sort(compareForReport('roas', order)).map((r) => r.id);
    expect(ids('descending')).toEqual([2, 5, 3, 4, 1]);
    expect(ids('ascending')).toEqual([5, 3, 2, 4, 1]);
  });
});

describe('window and cohorts', () => {
  it('when sides are absent or out of range, then they are clamped to the ClickHouse Date range', () => {
    expect(reportWindow(null, null)).toEqual({ from: '1970-01-01', to: '2149-06-06' });
    expect(reportWindow('0001-01-01', '9999-12-31')).toEqual({ from: '1970-01-01', to: '2149-06-06' });
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addDays('2024-03-01', -1)).toBe('2024-02-29');
  });

  it('when day N is not reached yet, then installs of those days are left out of dN', () => {
    const w = { from: '2025-03-01', to: '2025-03-18' };
    expect(cohortCutoff(w, '2025-03-20', 1)).toBe('2025-03-18');
    expect(cohortCutoff(w, '2025-03-20', 7)).toBe('2025-03-13');
    const c = zeroCohortCounts();
    c.cohort[1] = 4;
    c.rolling[1] = 2;
    c.classic[1] = 1;
    expect(retentionRatios(c)).toEqual({
      retention: { d1: 0.5, d7: undefined },
      classic: { d1: 0.25, d7: undefined, d14: undefined, d30: undefined },
    });
    c.cohort[0] = 4;
    expect(daywiseRevenue({ 0: '3', 3: '4', 7: '5', 30: '6' }, c)).toEqual({
      d0: '3',
      d3: undefined,
      d7: undefined,
      d30: undefined,
    });
  });
});
