// Exact money arithmetic for reports: ClickHouse returns Decimal(38, 9) as text ('12.5'); sums
// across ad sets, creatives and keywords are done in integer nano-units (bigint), never in floats.
// Divisions (roas, costs per install or event) are ratios of nano-units (ratio.ts), rounded once.
import { MONEY_SCALE } from '../../lib/money.ts';

/** Nano-units in one unit of money (Decimal(38, 9)). */
export const NANO_PER_UNIT = 10n ** BigInt(MONEY_SCALE);
const DECIMAL_RE = /^(-?)(\d+)(?:\.(\d+))?$/;

/** '12.5' → 12500000000n. Digits past the 9th decimal are cut (ClickHouse never sends them). */
export function toNano(s: string): bigint {
  const m = DECIMAL_RE.exec(s.trim());
  if (!m) {
    throw new Error(`not a decimal: '${s}'`);
  }
  const [, sign = '', int = '0', frac = ''] = m;
  const v = BigInt(int) * NANO_PER_UNIT + BigInt(frac.slice(0, MONEY_SCALE).padEnd(MONEY_SCALE, '0'));
  return sign === '-' ? -v : v;
}

/** 12500000000n → '12.5' (no trailing zeros, no '-0'). */
export function fromNano(n: bigint): string {
  const neg = n < 0n;
  const abs = neg ? -n : n;
  const whole = (abs / NANO_PER_UNIT).toString();
  const frac = (abs % NANO_PER_UNIT).toString().padStart(MONEY_SCALE, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

export function addDecimal(a: string, b: string): string {
  return fromNano(toNano(a) + toNano(b));
}
