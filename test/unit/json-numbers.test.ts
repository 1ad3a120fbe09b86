// JSON numbers used as ids (src/lib/json-numbers.ts): a number past 2^53 is refused as an id, and
// text we parse ourselves keeps such a number's digits instead of rounding it.
import { describe, expect, it } from 'vitest';
import { idTextOfNumber, parseJsonKeepingDigits } from '../../src/lib/json-numbers.ts';

describe('idTextOfNumber', () => {
  it('when a number is a safe integer or a fraction, then it is its text; past 2^53 or not finite, none', () => {
    expect([9007199254740991, -7, 0, 1.5].map(idTextOfNumber)).toEqual(['9007199254740991', '-7', '0', '1.5']);
    expect([9007199254740992, 1e21, -1e300, Number.NaN, Number.POSITIVE_INFINITY].map(idTextOfNumber)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe('parseJsonKeepingDigits', () => {
  it('when integers past 2^53 appear as numbers, then they come back as their digits; other numbers and strings as JSON.parse gives them', () => {
    const text =
      '{"id":23851234567890123,"neg":-12345678901234567890,"s":"a\\"9007199254740993","safe":9007199254740991,' +
      '"exp":1.5e3,"frac":12345678901234567.5,"list":[99999999999999999999,{"x":1}]}';
    expect(parseJsonKeepingDigits(text)).toEqual({
      id: '23851234567890123',
      neg: '-12345678901234567890',
      s: 'a"9007199254740993',
      safe: 9007199254740991,
      exp: 1500,
      frac: 12345678901234568,
      list: ['99999999999999999999', { x: 1 }],
    });
  });

  it('when the text has no long integer, or is not JSON, then it behaves as JSON.parse', () => {
    expect(parseJsonKeepingDigits('{"a":[1,2.5,"12345678901234567"]}')).toEqual({ a: [1, 2.5, '12345678901234567'] });
    expect(() => parseJsonKeepingDigits('{"a":12345678901234567')).toThrow(SyntaxError);
    expect(() => parseJsonKeepingDigits('{"a": 1')).toThrow(SyntaxError);
  });
});
