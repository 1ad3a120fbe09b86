// Exact money arithmetic for reports: ClickHouse returns Decimal(38, 9) as text ('12.5'); sums
// across ad sets, creatives and keywords are done in integer nano-units (bigint), never in floats.
import { MONEY_SCALE } from '../../lib/money.ts';

const SCALE = 10n ** BigInt(MONEY_SCALE);
const DECIMAL_RE = /^(-?)(\d+)(?:\.(\d+))?$/;

/** '12.5' → 12500000000n. Digits past the 9th decimal are cut (ClickHouse never sends them). */
export function toNano(s: string): bigint {
  const m = DECIMAL_RE.exec(s.trim());
  if (!m) {
    throw new Error(`not a decimal: '${s}'`);
  }
  const [, sign = '', int = '0', frac = ''] = m;
  const v = BigInt(int) * SCALE + BigInt(frac.slice(0, MONEY_SCALE).padEnd(MONEY_SCALE, '0'));
  return sign === '-' ? -v : v;
}

/** 12500000000n → '12.5' (no trailing zeros, no '-0'). */
export function fromNano(n: bigint): string {
  const neg = n < 0n;
  const abs = neg ? -n : n;
  const whole = (abs / SCALE).toString();
  const frac = (abs % SCALE).toString().padStart(MONEY_SCALE, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

export function addDecimal(a: string, b: string): string {
  return fromNano(toNano(a) + toNano(b));
}

/** `s` / `n` (a positive count), rounded to the nano-unit, half away from zero. */
export function divideDecimal(s: string, n: number): string {
  const num = toNano(s);
  const den = BigInt(n);
  const q = num / den;
  const twiceRest = 2n * (num % den);
  const up = twiceRest >= den ? 1n : twiceRest <= -den ? -1n : 0n;
  return fromNano(q + up);
}

/** The decimal as a float, for ratios only (display with 2 decimals). */
export function decimalToNumber(s: string): number {
  return Number(s);
}
