// JSON Schema patterns for the OpenAPI document, for checks zod's JSON Schema cannot state by
// itself: a value checked after trimming, an enum matched in any case, an integer range sent as
// text. They restate the parsers' checks (never used to parse); test/unit/http/doc-patterns.test.ts
// holds each against the parser it describes. JSON Schema patterns are ECMA-262 without flags, and
// validators (ajv) compile them in unicode mode, so only syntax characters are escaped.

const escapeLiteral = (s: string): string => s.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');

/** `[Aa][Cc]…`: the word in any case. */
export function anyCase(word: string): string {
  return [...word]
    .map((c) => (c.toLowerCase() === c.toUpperCase() ? escapeLiteral(c) : `[${c.toUpperCase()}${c.toLowerCase()}]`))
    .join('');
}

/**
 * One of `values` in any case, optionally with surrounding whitespace (`trim`) and optionally empty
 * (`empty`: the parser reads "" as "not given").
 */
export function anyCaseEnum(values: readonly string[], o: { trim: boolean; empty: boolean }): string {
  const ws = o.trim ? '\\s*' : '';
  return `^${ws}(?:${values.map(anyCase).join('|')})${o.empty ? '?' : ''}${ws}$`;
}

/**
 * Text the parser trims before checking it: once trimmed, at most `max` characters, and at least
 * one when `min` is 1 (with `min` 0 a blank value is "not given"). `noNul`: NUL is refused.
 */
export function trimmedText(min: 0 | 1, max: number, o: { noNul?: boolean } = {}): string {
  const edge = o.noNul ? '[^\\s\\u0000]' : '\\S';
  const any = o.noNul ? '[^\\u0000]' : '[\\s\\S]';
  const core = max === 1 ? edge : `${edge}(?:${any}{0,${max - 2}}${edge})?`;
  return `^\\s*(?:${core})${min === 0 ? '?' : ''}\\s*$`;
}

/** Text with at least one character that is neither whitespace nor NUL (a blank value is refused). */
export const NOT_BLANK = '[^\\s\\u0000]';

/** 1 to `max` in decimal digits without leading zeros, e.g. 365: `[1-9]\d{0,1}|[1-2]\d{2}|3[0-5]\d{1}|36[0-4]|365`. */
export function upTo(max: number): string {
  const digits = String(max);
  const n = digits.length;
  const alts: string[] = n > 1 ? [`[1-9]\\d{0,${n - 2}}`] : [];
  for (let i = 0; i < n; i++) {
    const d = Number(digits[i]);
    const lo = i === 0 ? 1 : 0;
    if (d - 1 >= lo) {
      const rest = n - i - 1;
      alts.push(`${digits.slice(0, i)}[${lo}-${d - 1}]${rest > 0 ? `\\d{${rest}}` : ''}`);
    }
  }
  alts.push(digits);
  return `(?:${alts.join('|')})`;
}
