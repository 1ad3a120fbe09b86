// Text as Postgres can store it: text and jsonb refuse NUL, and jsonb refuses a lone surrogate, so
// NUL is dropped and a lone surrogate becomes U+FFFD. Client bodies get it (parse/client/common.ts),
// and so does text the domain compares with what clients stored (SKAN schema event names).
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function storable(s: string): string {
  return s.replaceAll('\u0000', '').replace(LONE_SURROGATE, '\ufffd');
}

// Every escape of a JSON text, one at a time (so `\\ud800` is a backslash and text): a surrogate
// pair, a lone surrogate, \u0000, or any other escape (kept).
const JSON_ESCAPE =
  /\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|\\u([dD][89a-fA-F][0-9a-fA-F]{2}|0000)|\\./g;

/**
 * JSON text as Postgres jsonb takes it, by storable()'s rules: json keeps escapes as written, but
 * jsonb refuses `\u0000` and a lone surrogate escape (`"\ud800"`, as JSON.stringify writes a lone
 * surrogate), so the former is dropped and the latter becomes `\ufffd`. Everything else is kept
 * byte for byte (numbers are not parsed).
 */
export function storableJson(json: string): string {
  return json.replace(JSON_ESCAPE, (whole, single?: string) =>
    single === undefined ? whole : single === '0000' ? '' : '\\ufffd',
  );
}

/**
 * The first `max` characters (code points) of `s`: limits count characters, and a cut between the
 * two UTF-16 units of an emoji would leave a lone surrogate (stored as U+FFFD).
 */
export function cutChars(s: string, max: number): string {
  if (s.length <= max) {
    return s;
  }
  let end = 0;
  for (let n = 0; n < max && end < s.length; n++) {
    const c = s.charCodeAt(end);
    const pair = c >= 0xd800 && c <= 0xdbff && (s.charCodeAt(end + 1) & 0xfc00) === 0xdc00;
    end += pair ? 2 : 1;
  }
  return s.slice(0, end);
}
