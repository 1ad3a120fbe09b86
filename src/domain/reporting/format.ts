// The only place report numbers become text (spec: "formatted strings (thousands separators,
// currency symbols)"). Intl 'en-US' everywhere, so a row reads the same whatever the server locale:
//   counts      '3,201'
//   money       '$12,540.50' in the project's display_currency (its symbol and its minor digits:
//               '¥1,235', '€1,234.50', '₹0.99'); exact for any Decimal(38, 9), never via a float
//   percentages '12.50%'  (conversion, retention)
//   multipliers '2.35x'   (roas)
//   undefined   '-'       (a ratio over zero, or a metric hidden for iOS-only campaigns)
// Every value is rounded once, half away from zero, to the digits shown: a decimal string by Intl,
// a ratio (ratio.ts: costs per install, roas, percentages) by roundRatio before Intl sees it.
// A value that rounds to zero never shows a minus sign ('-$0.00' is '$0.00').

import { type Ratio, roundRatio } from './ratio.ts';

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

/**
 * Per currency, whether its formatter is a currency style one and its minor digits (asked once:
 * resolvedOptions() costs ~4 formats).
 */
const currencyInfo = new Map<string, { isCurrencyStyle: boolean; digits: number }>();

function currencyFormatter(currency: string): Intl.NumberFormat {
  return formatter(`money:${currency}`, () => {
    let f: Intl.NumberFormat;
    try {
      f = new Intl.NumberFormat('en-US', { style: 'currency', currency });
    } catch {
      // Not an ISO 4217 shape: plain number with 2 decimals (the code is prefixed by formatMoney).
      f = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    }
    const o = f.resolvedOptions();
    currencyInfo.set(currency, { isCurrencyStyle: o.style === 'currency', digits: o.maximumFractionDigits ?? 2 });
    return f;
  });
}

/**
 * Money from a decimal string or a ratio of money (a cost per install, sign-up or event), rounded
 * once to the currency's minor digits: a ratio is divided straight to them, never to nano-units first.
 */
export function formatMoney(value: string | Ratio, currency: string): string {
  const f = currencyFormatter(currency);
  const info = currencyInfo.get(currency) ?? { isCurrencyStyle: false, digits: 2 };
  const text = fmt(f, typeof value === 'string' ? value : roundRatio(value, info.digits));
  return info.isCurrencyStyle ? text : `${currency} ${text}`;
}

/** A ratio as a percentage with 2 decimals: rounded at the ratio's 4th decimal, which Intl shifts exactly. */
export function formatPercent(r: Ratio): string {
  const f = formatter(
    'percent',
    () => new Intl.NumberFormat('en-US', { style: 'percent', minimumFractionDigits: 2, maximumFractionDigits: 2 }),
  );
  return fmt(f, roundRatio(r, 4));
}

export function formatMultiplier(r: Ratio): string {
  const f = formatter(
    'multiplier',
    () => new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }),
  );
  return `${fmt(f, roundRatio(r, 2))}x`;
}

/** A ratio that may be undefined (zero denominator): '-' then, else formatted by `as`. */
export function formatRatio(r: Ratio | undefined, as: (r: Ratio) => string): string {
  return r === undefined ? DASH : as(r);
}
