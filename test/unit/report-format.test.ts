// domain/reporting pure parts: number formatting (the only formatter), LIKE escaping, exact decimal
// sums, exact ratios rounded once (never a division by zero, never a float), sort order, windows and
// cohort cutoffs.
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
import { conversion, costPer, roas, sortValues, zeroTotals } from '../../src/domain/reporting/metrics.ts';
import { compareRatios, type Ratio, ratio, roundRatio } from '../../src/domain/reporting/ratio.ts';
import { containsPattern, escapeLike } from '../../src/domain/reporting/search.ts';
import { compareForReport } from '../../src/domain/reporting/sort.ts';
import { addDays, reportWindow } from '../../src/domain/reporting/window.ts';

/** num / den as an exact ratio (den ≠ 0). */
const q = (num: bigint, den: bigint): Ratio => ratio(num, den) as Ratio;

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
    expect(formatMoney(q(1n, 3n), 'GBP')).toBe('£0.33');
    expect(formatMoney(q(-1n, 300n), 'GBP')).toBe('£0.00');
    expect(formatMoney(q(2469n, 2n), 'JPY')).toBe('¥1,235');
    expect(formatMoney(q(2469n, 2n), 'XX1')).toBe('XX1 1,234.50');
  });

  it('when the currency code is not ISO-shaped, then the code prefixes a plain number', () => {
    expect(formatMoney('1234.5', 'XX1')).toBe('XX1 1,234.50');
  });

  it('when ratios are formatted, then percentages and multipliers have 2 decimals and undefined is "-"', () => {
    expect(formatPercent(q(1n, 8n))).toBe('12.50%');
    expect(formatPercent(q(25n, 2n))).toBe('1,250.00%');
    expect(formatMultiplier(q(469n, 200n))).toBe('2.35x');
    expect(formatRatio(undefined, formatPercent)).toBe(DASH);
    expect(formatRatio(q(1n, 3n), formatPercent)).toBe('33.33%');
    expect(formatPercent(q(-1n, 30000n))).toBe('0.00%');
  });

  it('when a ratio lies on or just below a rounding half, then it is rounded once, half up, like the exact value', () => {
    // Each was rounded twice or went through a float before: $0.01, 5.02x, …000.60%.
    const cost = (spend: string, n: number, currency: string) => formatMoney(costPer(spend, n) as Ratio, currency);
    expect(cost('0.014999999', 3, 'USD')).toBe('$0.00');
    expect(cost('0.015', 3, 'USD')).toBe('$0.01');
    expect(cost('1.499999999', 3, 'JPY')).toBe('¥0');
    expect(cost('1.5', 3, 'JPY')).toBe('¥1');
    expect(formatMultiplier(roas({ ...zeroTotals(), revenue: '1.005', spend: '0.2' }) as Ratio)).toBe('5.03x');
    expect(formatMultiplier(roas({ ...zeroTotals(), revenue: '1.004999999', spend: '0.2' }) as Ratio)).toBe('5.02x');
    const huge = { ...zeroTotals(), signups: 1_600_000_000_000_001, installs: 160 };
    expect(formatPercent(conversion(huge, 'user_acquisition') as Ratio)).toBe('1,000,000,000,000,000.63%');
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

describe('ratio', () => {
  it('when a ratio is rounded, then it is rounded once, half away from zero, with no "-0"', () => {
    expect(roundRatio(q(10n, 3n), 9)).toBe('3.333333333');
    expect(roundRatio(q(20n, 3n), 9)).toBe('6.666666667');
    expect(roundRatio(q(5n, 1000n), 2)).toBe('0.01');
    expect(roundRatio(q(-5n, 1000n), 2)).toBe('-0.01');
    expect(roundRatio(q(4999999999n, 1000000000000n), 2)).toBe('0.00');
    expect(roundRatio(q(-1n, 1000n), 2)).toBe('0.00');
    expect(roundRatio(q(2469n, 2n), 0)).toBe('1235');
    expect(roundRatio(q(7n, -2n), 1)).toBe('-3.5');
  });

  it('when ratios are compared, then equal values are equal whatever their terms, and others are in exact order', () => {
    expect(compareRatios(q(3n, 10n), q(30n, 100n))).toBe(0);
    expect(compareRatios(q(1n, 3n), q(333333333n, 1000000000n))).toBe(1);
    expect(compareRatios(q(-1n, 2n), q(0n, 1n))).toBe(-1);
  });
});

describe('metrics', () => {
  const t = { ...zeroTotals(), installs: 4, reinstalls: 1, reengagements: 1, signups: 2, revenue: '30', spend: '20' };

  it('when denominators are zero, then ratios are undefined, never Infinity or NaN', () => {
    expect(ratio(1n, 0n)).toBeUndefined();
    expect(ratio(0n, 0n)).toBeUndefined();
    expect(roas(zeroTotals())).toBeUndefined();
    expect(costPer('10', 0)).toBeUndefined();
    expect(conversion(zeroTotals(), 'user_acquisition')).toBeUndefined();
  });

  it('when the view changes, then conversion changes its denominator', () => {
    expect(conversion(t, 'user_acquisition')).toEqual(q(2n, 4n));
    expect(conversion(t, 'retargeting')).toEqual(q(2n, 2n));
    expect(roas(t)).toEqual(q(30_000_000_000n, 20_000_000_000n));
    expect(formatMoney(costPer(t.spend, t.installs) as Ratio, 'USD')).toBe('$5.00');
  });

  it('when money is divided, then the cost is exact, rounded once to the currency digits, half away from zero', () => {
    // Through a float, 12345678901234567.89 over one install came out as …568.
    const usd = (spend: string, n: number) => formatMoney(costPer(spend, n) as Ratio, 'USD');
    expect(usd('12345678901234567.89', 1)).toBe('$12,345,678,901,234,567.89');
    expect(usd('10', 3)).toBe('$3.33');
    expect(usd('20', 3)).toBe('$6.67');
    expect(usd('0.01', 2)).toBe('$0.01');
    expect(usd('-0.01', 2)).toBe('-$0.01');
    expect(usd('99999999999999999999999999999.999999999', 7)).toBe('$14,285,714,285,714,285,714,285,714,285.71');
  });

  it('when a campaign is iOS-only, then its hidden metrics sort as "-"', () => {
    const v = sortValues(t, 'user_acquisition', new Date(0), true);
    expect(v).toMatchObject({ revenue: undefined, signups: undefined, roas: undefined, conversion: undefined });
    expect(v).toMatchObject({ installs: 4, spend: 20_000_000_000n, clicks: 0 });
  });
});

describe('sort', () => {
  const row = (id: number, roas: Ratio | undefined, created: number) => ({
    id,
    createdAt: new Date(created),
    values: { ...sortValues(zeroTotals(), 'user_acquisition', new Date(created), false), roas },
  });
  const ids = (rows: ReturnType<typeof row>[], order: 'ascending' | 'descending') =>
    [...rows].sort(compareForReport('roas', order)).map((r) => r.id);

  it('when values are undefined, then they go last in both orders, and ties go to the newest', () => {
    const rows = [row(1, undefined, 1), row(2, q(2n, 1n), 2), row(3, q(1n, 1n), 3), row(4, undefined, 4)];
    rows.push(row(5, q(1n, 1n), 5));
    expect(ids(rows, 'descending')).toEqual([2, 5, 3, 4, 1]);
    expect(ids(rows, 'ascending')).toEqual([5, 3, 2, 4, 1]);
  });

  it('when ratios are equal in other terms or differ past a float, then they sort exactly', () => {
    // As floats: 0.3 / 0.1 = 2.9999999999999996 < 3, and 50249999.999999999 / 1e7 (5.02x) > 1.005 / 0.2 (5.03x).
    const r = (revenue: string, spend: string) => roas({ ...zeroTotals(), revenue, spend });
    const tie = [row(1, r('3', '1'), 1), row(2, r('0.3', '0.1'), 2)];
    expect(ids(tie, 'descending')).toEqual([2, 1]);
    expect(ids(tie, 'ascending')).toEqual([2, 1]);
    const close = [row(1, r('1.005', '0.2'), 1), row(2, r('50249999.999999999', '10000000'), 2)];
    expect(ids(close, 'descending')).toEqual([1, 2]);
    expect(ids(close, 'ascending')).toEqual([2, 1]);
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
      retention: { d1: q(2n, 4n), d7: undefined },
      classic: { d1: q(1n, 4n), d7: undefined, d14: undefined, d30: undefined },
    });
    c.cohort[0] = 4;
    expect(daywiseRevenue({ 0: '3', 3: '4', 7: '5', 30: '6' }, c)).toEqual({
      d0: '3',
      d3: undefined,
      d7: undefined,
      d30: undefined,
    });
  });

  it('when returners outnumber the cohort (an app open written before its decision), then the share stops at 100 %', () => {
    const c = zeroCohortCounts();
    c.cohort[1] = 1;
    c.rolling[1] = 2;
    c.classic[1] = 2;

    const r = retentionRatios(c);

    expect(r.retention.d1).toEqual(q(1n, 1n));
    expect(r.classic.d1).toEqual(q(1n, 1n));
  });
});
