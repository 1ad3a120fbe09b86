// Exact ratios for reports (roas, conversion, retention, costs per install, sign-up or event): the
// numerator and denominator stay integers (counts, or money in nano-units) and the value is rounded
// once, half away from zero, to the digits it is shown with (format.ts). Through a float, 1.005 / 0.2
// was 5.0249999999999995 and showed 5.02x, not 5.03x; rounded to nano-units first and then to cents,
// 0.014999999 / 3 (0.0049999996…) showed $0.01, not $0.00.

/** num / den with den > 0. */
export type Ratio = { readonly num: bigint; readonly den: bigint };

/** num / den, or undefined when den is 0 (a ratio over zero is "-", never Infinity or NaN). */
export function ratio(num: bigint, den: bigint): Ratio | undefined {
  if (den === 0n) {
    return undefined;
  }
  return den < 0n ? { num: -num, den: -den } : { num, den };
}

const SCALES = [1n, 10n, 100n, 1_000n, 10_000n];

/** The ratio rounded half away from zero to `digits` decimals, as plain decimal text ('5.03', '0', '-1.50'). */
export function roundRatio(r: Ratio, digits: number): string {
  const scale = SCALES[digits] ?? 10n ** BigInt(digits);
  const abs = (r.num < 0n ? -r.num : r.num) * scale;
  let q = abs / r.den;
  if (2n * (abs % r.den) >= r.den) {
    q += 1n;
  }
  // One toString, then the point (a report shows tens of thousands of these).
  const text = q.toString().padStart(digits + 1, '0');
  const sign = r.num < 0n && q !== 0n ? '-' : '';
  return digits > 0 ? `${sign}${text.slice(0, -digits)}.${text.slice(-digits)}` : `${sign}${text}`;
}

/** Exact order of two ratios (negative when a < b), by cross-multiplying: no rounding, so equal means equal. */
export function compareRatios(a: Ratio, b: Ratio): number {
  const left = a.num * b.den;
  const right = b.num * a.den;
  return left < right ? -1 : left > right ? 1 : 0;
}
