// Money as exact decimal strings: Postgres numeric(38, 9) and ClickHouse Decimal(38, 9) read them
// without a float ever touching the value. A JSON number reaches us as a double; its shortest
// round-trip text (what JavaScript prints, and what the SDKs most likely sent) is taken as the
// value, so 0.1 stays 0.1, 1e20 becomes 100000000000000000000 and 1.25E7 becomes 12500000.
export const MONEY_SCALE = 9;
/**
 * The largest amount accepted (one payment, one event's revenue, one spend row): 1e20, far above any
 * real amount in any currency. numeric(38, 9) and Decimal(38, 9) hold 29 integer digits, and
 * ClickHouse wraps a Decimal sum that passes about 1.7e29 without an error (a report showed a large
 * negative spend for 18 rows of 1e28): at 1e20, a sum wraps only past a billion maximal amounts.
 */
export const MAX_AMOUNT = 1e20;
const MAX_AMOUNT_UNITS = 10n ** 20n;

const NUMBER_TEXT = /^(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/;
const SCALE = 10n ** BigInt(MONEY_SCALE);

/**
 * The finite number `n` as a plain decimal string with at most 9 decimals, rounded half away from
 * zero at the 9th (0.0000000005 → '0.000000001'). Undefined for NaN and ±Infinity. -0 is '0'.
 */
export function decimalFromNumber(n: number): string | undefined {
  if (!Number.isFinite(n)) {
    return undefined;
  }
  const m = NUMBER_TEXT.exec(String(Math.abs(n)));
  if (!m) {
    return undefined;
  }
  const [, int = '', frac = '', exp = '0'] = m;
  const digits = BigInt(int + frac);
  const shift = Number(exp) - frac.length + MONEY_SCALE;
  let scaled: bigint;
  if (shift >= 0) {
    scaled = digits * 10n ** BigInt(shift);
  } else {
    const divisor = 10n ** BigInt(-shift);
    scaled = digits / divisor;
    if ((digits % divisor) * 2n >= divisor) {
      scaled += 1n;
    }
  }
  const whole = (scaled / SCALE).toString();
  const fraction = (scaled % SCALE).toString().padStart(MONEY_SCALE, '0').replace(/0+$/, '');
  const sign = n < 0 && scaled !== 0n ? '-' : '';
  return `${sign}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** A revenue amount: a finite JSON number from 0 to MAX_AMOUNT, as a decimal string; else undefined. */
export function revenueAmount(value: unknown): string | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_AMOUNT) {
    return undefined;
  }
  return decimalFromNumber(value);
}

/** Whether a plain decimal's whole and fraction digits stay within MAX_AMOUNT, exactly (no float). */
export function withinMaxAmount(whole: string, fraction: string): boolean {
  const units = BigInt(whole || '0');
  return units < MAX_AMOUNT_UNITS || (units === MAX_AMOUNT_UNITS && /^0*$/.test(fraction));
}

/** A Postgres numeric's text without trailing fraction zeros ('12.500000000' → '12.5'). */
export function trimDecimal(s: string): string {
  return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
}
