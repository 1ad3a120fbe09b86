// The catalog §4c bad values as raw JSON text (so 1e309, -0, 9007199254740993 and duplicate keys
// reach the parser exactly as written), as query-string text, and as fast-check arbitraries that
// mix the fixed list with random strings.
import fc from 'fast-check';

const enc = JSON.stringify;

export const nested = (depth: number, open = '[', close = ']', inner = ''): string =>
  `${open.repeat(depth)}${inner}${close.repeat(depth)}`;

export const nestedObject = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

/** §4c strings, as JS strings. */
export const BAD_STRINGS: readonly string[] = [
  '',
  ' ',
  '   ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udc00y',
  '\u202eevil\u202c',
  '👩‍👩‍👧‍👦',
  '🏳️‍🌈 emoji',
  'Caf\u00e9',
  'Cafe\u0301',
  '\ufeffbom',
  "'; DROP TABLE campaigns;--",
  '%',
  '_',
  '%_\\\'"',
  '\\',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  'javascript:alert(1)',
  'data:text/html,x',
  '//evil.example',
  'https://good@evil.example',
  'https://a.test/%0d%0aSet-Cookie:x=1',
  'https://a.test/\r\nSet-Cookie: x=1',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '1e309',
  '-0',
  '9007199254740993',
  '0x1F',
  'true',
  '{}',
  '[]',
  'a'.repeat(257),
  'é'.repeat(5000),
  'a'.repeat(60_000),
];

/** A 1M-character string (over every body cap: 413 on bodies, and a long query value). */
export const MILLION = 'a'.repeat(1_000_000);

/** §4c numbers and other JSON values, as raw JSON text. */
export const BAD_LITERALS: readonly string[] = [
  '1e309',
  '-1e309',
  '-0',
  '9007199254740993',
  '0.1',
  '-1',
  '-0.01',
  '0',
  '1.5',
  '1e20',
  '1e28',
  '1e29',
  '1.25E7',
  '2.0',
  '123456789012345678901234567890.123456789012345678',
  '0.000000000000000001',
  'true',
  'false',
  'null',
  '[]',
  '{}',
  '[""]',
  '[1]',
  '["x","x"]',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '{"a":{"__proto__":{"polluted":1}}}',
  nested(10),
  nestedObject(10),
  nested(1000),
  nestedObject(1000),
  // Deep, yet under the 64 KiB client cap: these reach the parsers and the stores.
  nested(30_000),
  nestedObject(10_000),
  ...BAD_STRINGS.map((s) => enc(s)),
];

/** A bad value as raw JSON text: the fixed list, or random JSON of any shape. */
export const badLiteral: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...BAD_LITERALS) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 64 }).map((s) => enc(s)) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => enc(v)) },
  { weight: 1, arbitrary: fc.double().map((d) => (Number.isFinite(d) ? String(d) : '1e309')) },
  { weight: 1, arbitrary: fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String) },
);

/** A bad query-string value (already a JS string; the caller URL-encodes it). */
export const badQueryValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...BAD_STRINGS, '0', '-1', '1.5', 'abc', '1 OR 1=1', '1e309', '1001') },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 64 }) },
  { weight: 1, arbitrary: fc.integer().map(String) },
);

const SLOT = '"\\u0001BAD_INPUT_SLOT\\u0001"';
const SLOT_VALUE = '\u0001BAD_INPUT_SLOT\u0001';

/** JSON text of `base` with the value at `path` replaced by the raw JSON `literal`. */
export function withRaw(base: Record<string, unknown>, path: readonly string[], literal: string): string {
  const copy = structuredClone(base);
  let at: Record<string, unknown> = copy;
  for (const key of path.slice(0, -1)) {
    const next = at[key];
    if (next === null || typeof next !== 'object' || Array.isArray(next)) {
      at[key] = {};
    }
    at = at[key] as Record<string, unknown>;
  }
  at[path[path.length - 1] as string] = SLOT_VALUE;
  return enc(copy).replace(SLOT, () => literal);
}

/** JSON text of `base` with `key` written twice: once as in base, once as the raw `literal`. */
export function withDuplicateKey(
  base: Record<string, unknown>,
  key: string,
  literal: string,
  badFirst: boolean,
): string {
  const good = enc(base).slice(1, -1);
  const dup = `${enc(key)}:${literal}`;
  const inner = badFirst ? `${dup}${good ? `,${good}` : ''}` : `${good ? `${good},` : ''}${dup}`;
  return `{${inner}}`;
}

/** Every key path of a JSON object (objects only; arrays are leaves), for field-by-field fuzzing. */
export function keyPaths(value: Record<string, unknown>, prefix: string[] = []): string[][] {
  const out: string[][] = [];
  for (const [k, v] of Object.entries(value)) {
    out.push([...prefix, k]);
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      out.push(...keyPaths(v as Record<string, unknown>, [...prefix, k]));
    }
  }
  return out;
}

/** Whole bodies that are not a usable JSON object (§4c "Bodies"). */
export const BAD_BODIES: readonly { label: string; body: string | Buffer; type?: string }[] = [
  { label: 'not JSON', body: 'name=x&token=y' },
  { label: 'truncated', body: '{"token":' },
  { label: 'trailing comma', body: '{"a":1,}' },
  { label: 'single quotes', body: "{'a':1}" },
  { label: 'empty', body: '' },
  { label: 'whitespace', body: '   \n ' },
  { label: 'null', body: 'null' },
  { label: 'array', body: '[]' },
  { label: 'array of object', body: '[{"a":1}]' },
  { label: 'string', body: '"s"' },
  { label: 'number', body: '1' },
  { label: 'true', body: 'true' },
  { label: 'NaN', body: 'NaN' },
  { label: 'BOM + object', body: '\ufeff{}' },
  { label: 'invalid UTF-8', body: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]) },
  { label: 'UTF-16 object', body: Buffer.from('{"a":1}', 'utf16le') },
  { label: 'NUL bytes', body: Buffer.from([0x7b, 0x00, 0x7d]) },
  { label: 'top-level __proto__', body: '{"__proto__":{"polluted":true}}' },
  { label: 'constructor.prototype', body: '{"constructor":{"prototype":{"polluted":true}}}' },
  { label: 'nesting 10 arrays', body: nested(10) },
  { label: 'nesting 1k arrays', body: nested(1000) },
  { label: 'nesting 1k objects', body: nestedObject(1000) },
  { label: 'nesting 100k arrays', body: nested(100_000) },
  { label: 'nesting 100k unclosed', body: '['.repeat(100_000) },
  { label: 'nesting 100k objects', body: nestedObject(100_000) },
  { label: 'text/plain', body: '{}', type: 'text/plain' },
  { label: 'form', body: 'a=1', type: 'application/x-www-form-urlencoded' },
  { label: 'multipart', body: '--x\r\n\r\n--x--', type: 'multipart/form-data; boundary=x' },
  { label: 'json charset latin1', body: '{}', type: 'application/json; charset=latin1' },
  { label: 'json+suffix', body: '{}', type: 'application/vnd.api+json' },
  { label: 'garbage type', body: '{}', type: '}}{{;;' },
  { label: '1 MiB + 1 of JSON', body: `{"a":"${'a'.repeat(1024 * 1024 - 7)}"}` },
  { label: '1 MiB + 1 of junk', body: 'x'.repeat(1024 * 1024 + 1) },
];

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** String.prototype.toWellFormed (not in our TS lib): lone surrogates become U+FFFD, as URL encoding needs. */
export const wellFormed = (s: string): string => s.replace(LONE_SURROGATE, '\ufffd');
