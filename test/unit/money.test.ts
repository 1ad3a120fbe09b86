// src/lib/money.ts: JSON numbers to exact decimal strings for numeric(38, 9) / Decimal(38, 9).
import { describe, expect, it } from 'vitest';
import { decimalFromNumber, revenueAmount, trimDecimal, withinMaxAmount } from '../../src/lib/money.ts';

describe('decimalFromNumber', () => {
  it.each<[number, string]>([
    [0, '0'],
    [-0, '0'],
    [12, '12'],
    [499.0, '499'],
    [0.1, '0.1'],
    [0.1 + 0.2, '0.3'], // 0.30000000000000004 rounds to 9 decimals
    [1e20, '100000000000000000000'],
    [1e21, '1000000000000000000000'],
    [1.25e7, '12500000'],
    [1e-7, '0.0000001'],
    [1e-10, '0'],
    [5e-10, '0.000000001'],
    [0.1234567895, '0.12345679'],
    [Number('0.123456789123456789'), '0.123456789'],
    [-2.5, '-2.5'],
    [-4e-10, '0'],
    [Number('9007199254740993'), '9007199254740992'], // what JSON.parse makes of it
    [1e28, '10000000000000000000000000000'],
  ])('%s → %s', (n, text) => {
    expect(decimalFromNumber(n)).toBe(text);
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])('%s → undefined', (n) => {
    expect(decimalFromNumber(n)).toBeUndefined();
  });
});

describe('revenueAmount', () => {
  it.each<[unknown, string | undefined]>([
    [12.5, '12.5'],
    [0, '0'],
    [-0, '0'],
    [1e20, '100000000000000000000'],
    [1.0000001e20, undefined],
    [1e28, undefined],
    [-0.01, undefined],
    ['12', undefined],
    [null, undefined],
    [Number.POSITIVE_INFINITY, undefined],
    [true, undefined],
  ])('%s → %s', (v, text) => {
    expect(revenueAmount(v)).toBe(text);
  });
});

describe('withinMaxAmount (decimal digits against 1e20, exactly)', () => {
  it.each<[string, string, boolean]>([
    ['100000000000000000000', '', true],
    ['100000000000000000000', '000000000', true],
    ['99999999999999999999', '999999999', true],
    ['100000000000000000000', '000000001', false],
    ['100000000000000000001', '', false],
    ['10000000000000000000000000001', '', false],
    ['', '5', true],
  ])('%s.%s → %s', (whole, fraction, within) => {
    expect(withinMaxAmount(whole, fraction)).toBe(within);
  });
});

describe('trimDecimal', () => {
  it.each([
    ['12.500000000', '12.5'],
    ['0.000000000', '0'],
    ['100', '100'],
    ['100.000000001', '100.000000001'],
  ])('%s → %s', (s, text) => {
    expect(trimDecimal(s)).toBe(text);
  });
});
