// The only place report numbers become text (spec: "formatted strings (thousands separators,
// currency symbols)"). Intl 'en-US' everywhere, so a row reads the same whatever the server locale:
//   counts      '3,201'
//   money       '$12,540.50' in the project's display_currency (its symbol and its minor digits:
//               '¥1,235', '€1,234.50', '₹0.99'); exact for any Decimal(38, 9), never via a float
//   percentages '12.50%'  (conversion, retention)
//   multipliers '2.35x'   (roas)
//   undefined   '-'       (a ratio over zero, or a metric hidden for iOS-only campaigns)
// A value that rounds to zero never shows a minus sign ('-$0.00' is '$0.00').

export const DASH = '-';

const cache = new Map<string, Intl.NumberFormat>();

function formatter(key: string, make: () => Intl.NumberFormat): Intl.NumberFormat {
  let f = cache.get(key);
  if (!f) {
    f = make();
    cache.set(key, f);
  }
  return f;
}

const noNegativeZero = (s: string): string => (s.startsWith('-') && !/[1-9]/.test(s) ? s.slice(1) : s);

type Numeric = number | bigint | `${number}`;

function fmt(f: Intl.NumberFormat, value: Numeric | string): string {
  // Intl formats decimal strings exactly (no float on the way); the cast satisfies older lib types.
  return noNegativeZero(f.format(value as number));
}

export function formatCount(n: number | bigint | string): string {
  const f = formatter('count', () => new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 }));
  return fmt(f, n as Numeric);
}

/** Whether each currency's formatter is a currency style one (asked once: resolvedOptions() costs ~4 formats). */
const isCurrencyStyle = new Map<string, boolean>();

function currencyFormatter(currency: string): Intl.NumberFormat {
  return formatter(`money:${currency}`, () => {
    let f: Intl.NumberFormat;
    try {
      f = new Intl.NumberFormat('en-US', { style: 'currency', currency });
    } catch {
      // Not an ISO 4217 shape: plain number with 2 decimals (the code is prefixed by formatMoney).
      f = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    }
    isCurrencyStyle.set(currency, f.resolvedOptions().style === 'currency');
    return f;
  });
}

/** Money from a decimal string (exact) or a number (ratios such as cost per install). */
export function formatMoney(value: string | number, currency: string): string {
  const text = fmt(currencyFormatter(currency), value as Numeric);
  return isCurrencyStyle.get(currency) ? text : `${currency} ${text}`;
}

export function formatPercent(ratio: number): string {
  const f = formatter(
    'percent',
    () => new Intl.NumberFormat('en-US', { style: 'percent', minimumFractionDigits: 2, maximumFractionDigits: 2 }),
  );
  return fmt(f, ratio);
}

export function formatMultiplier(ratio: number): string {
  const f = formatter(
    'multiplier',
    () => new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }),
  );
  return `${fmt(f, ratio)}x`;
}

/** A ratio that may be undefined (zero denominator): '-' then, else formatted by `as`. */
export function formatRatio(ratio: number | undefined, as: (r: number) => string): string {
  return ratio === undefined ? DASH : as(ratio);
}
