// Exact arithmetic on the decimal strings Postgres gives for numeric(38, 9) (lib/money.ts): a
// refund compares and subtracts amounts, so they are taken as integer units of 1e-9, never floats.
import { MONEY_SCALE } from '../../lib/money.ts';

const SCALE = 10n ** BigInt(MONEY_SCALE);

/** '12.5' → 12500000000n (at most 9 decimals, as stored; a sign is kept). */
export function toUnits(decimal: string): bigint {
  const negative = decimal.startsWith('-');
  const [whole = '0', fraction = ''] = decimal.replace(/^-/, '').split('.');
  const units = BigInt(whole || '0') * SCALE + BigInt(fraction.padEnd(MONEY_SCALE, '0').slice(0, MONEY_SCALE));
  return negative ? -units : units;
}

/** 12500000000n → '12.5'. */
export function fromUnits(units: bigint): string {
  const sign = units < 0n ? '-' : '';
  const abs = units < 0n ? -units : units;
  const fraction = (abs % SCALE).toString().padStart(MONEY_SCALE, '0').replace(/0+$/, '');
  return `${sign}${abs / SCALE}${fraction ? `.${fraction}` : ''}`;
}
