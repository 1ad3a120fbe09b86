// Report ratios (src/domain/reporting/ratio.ts, format.ts, sort.ts) at their edges.
import { describe, expect, it } from 'vitest';
import { formatMoney, formatMultiplier, formatPercent } from '../../src/domain/reporting/format.ts';
import { costPer, roas } from '../../src/domain/reporting/metrics.ts';
import { compareRatios, ratio, roundRatio } from '../../src/domain/reporting/ratio.ts';
import { compareForReport } from '../../src/domain/reporting/sort.ts';

const r = (n: bigint, d: bigint) => ratio(n, d) as NonNullable<ReturnType<typeof ratio>>;

describe('ratio edges', () => {
  it('when revenue is negative (refunds), then roas is negative and never "-0.00x"', () => {
    expect(formatMultiplier(r(-1n, 1000n))).toBe('0.00x');
    expect(formatMultiplier(r(-5n, 1000n))).toBe('-0.01x');
    expect(formatMultiplier(r(-3n, 2n))).toBe('-1.50x');
  });

  it('when a denominator is negative, then the sign moves to the numerator', () => {
    expect(roundRatio(r(3n, -2n), 2)).toBe('-1.50');
    expect(compareRatios(r(1n, -2n), r(-1n, 3n))).toBe(-1);
  });

  it('when values are huge, then they are exact', () => {
    expect(roundRatio(r(10n ** 40n + 5n, 10n), 0)).toBe('1000000000000000000000000000000000000001');
    expect(formatPercent(r(1n, 3n))).toBe('33.33%');
    expect(formatPercent(r(2n, 3n))).toBe('66.67%');
    expect(formatPercent(r(1n, 8n))).toBe('12.50%');
  });

  it('when costs per install are rounded, then once, to the currency digits', () => {
    expect(formatMoney(costPer('0.014999999', 3) as never, 'USD')).toBe('$0.00');
    expect(formatMoney(costPer('0.015', 1) as never, 'USD')).toBe('$0.02');
    expect(formatMoney(costPer('-0.004', 1) as never, 'USD')).toBe('$0.00');
    expect(formatMoney(costPer('1.5', 1) as never, 'JPY')).toBe('¥2');
    expect(formatMoney(costPer('1.0005', 1) as never, 'KWD').replace(/\s/g, ' ')).toBe('KWD 1.001');
    expect(costPer('10', 0)).toBeUndefined();
    expect(roas({ revenue: '1.005', spend: '0.2' } as never)).toBeDefined();
    expect(formatMultiplier(roas({ revenue: '1.005', spend: '0.2' } as never) as never)).toBe('5.03x');
    expect(roas({ revenue: '10', spend: '0' } as never)).toBeUndefined();
  });

  it("when sorting roas with '-' and negative values, then '-' is last in both orders", () => {
    const row = (id: number, roas: ReturnType<typeof ratio>) => ({
      id,
      createdAt: new Date(id),
      values: { roas } as never,
    });
    const rows = [row(1, undefined), row(2, r(-1n, 1n)), row(3, r(3n, 1n)), row(4, r(3n, 10n))];
    expect([...rows].sort(compareForReport('roas', 'ascending')).map((x) => x.id)).toEqual([2, 4, 3, 1]);
    expect([...rows].sort(compareForReport('roas', 'descending')).map((x) => x.id)).toEqual([3, 4, 2, 1]);
  });
});
