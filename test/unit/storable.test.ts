// Text as Postgres can store it (src/lib/storable.ts): NUL dropped, a lone surrogate made U+FFFD,
// and cuts counted in characters (code points) that never split an emoji into a lone surrogate;
// JSON text made acceptable to jsonb by the same rules, its other bytes untouched.
import { describe, expect, it } from 'vitest';
import { MSG } from '../../src/http/messages.ts';
import { cutChars, storable, storableJson } from '../../src/lib/storable.ts';

describe('storable', () => {
  it('when text holds NUL or a lone surrogate, then NUL is dropped and the surrogate becomes U+FFFD; pairs stay', () => {
    expect(storable('a\u0000b\ud83d\ude00c\ud83dd\ude00')).toBe('ab\ud83d\ude00c\ufffdd\ufffd');
  });
});

describe('storableJson', () => {
  it('when JSON text holds lone surrogate or \\u0000 escapes, then they become \\ufffd or go, and pairs, escaped backslashes and numbers stay', () => {
    const json = JSON.stringify({ a: '\ud800x', b: 'y\udfff', c: '\ud83d\ude00', d: '\\ud800', e: 'n\u0000' });
    const big = '{"n":12345678901234567890,"f":0.1000000000000000055511151231257827,"u":"\\uD83D\\uDE00\\uDBFF"}';

    expect(storableJson(json)).toBe(String.raw`{"a":"\ufffdx","b":"y\ufffd","c":"😀","d":"\\ud800","e":"n"}`);
    expect(storableJson(big)).toBe(
      String.raw`{"n":12345678901234567890,"f":0.1000000000000000055511151231257827,"u":"\uD83D\uDE00\ufffd"}`,
    );
    expect(JSON.parse(storableJson(json))).toEqual({
      a: '\ufffdx',
      b: 'y\ufffd',
      c: '\ud83d\ude00',
      d: '\\ud800',
      e: 'n',
    });
  });
});

describe('cutChars', () => {
  it('when text is longer than the limit, then it keeps that many characters, an emoji counting one', () => {
    const emoji = '\ud83d\ude00';
    expect(cutChars(emoji.repeat(5), 3)).toBe(emoji.repeat(3));
    expect(cutChars(`ab${emoji}cd`, 3)).toBe(`ab${emoji}`);
    expect(cutChars('abcdef', 4)).toBe('abcd');
    expect(cutChars('abc', 5)).toBe('abc');
    expect(cutChars('', 0)).toBe('');
    // A lone high surrogate is one character, as charLength counts it.
    expect(cutChars('\ud83dxyz', 2)).toBe('\ud83dx');
  });
});

describe('messages echoing a value', () => {
  it('when an echoed value is 101 emoji, then the message holds 100 of them whole and an ellipsis', () => {
    const text = MSG.connectionInvalid('\u{1F600}'.repeat(101));
    expect(text).toBe(`Invalid connection: ${'\u{1F600}'.repeat(100)}…`);
  });
});
