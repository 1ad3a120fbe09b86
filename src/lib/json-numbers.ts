// JSON numbers that stand for ids. JSON.parse rounds an integer beyond 2^53 to the nearest double,
// so two different ids sent as numbers (9007199254740993 and ...992) arrive as one: a second user
// merged into the first, a second payment dropped as a duplicate, a dataset id naming another
// dataset. Request bodies refuse such a number (idTextOfNumber); text we parse ourselves (Meta's
// decrypted referrer) keeps its digits (parseJsonKeepingDigits).

/** The id a JSON number was sent as, or undefined when it may not be (rounded, or not finite). */
export function idTextOfNumber(v: number): string | undefined {
  if (!Number.isFinite(v) || (Number.isInteger(v) && !Number.isSafeInteger(v))) {
    return undefined;
  }
  return String(v);
}

/** An integer literal too long to be sure of as a double: 16 digits or more. */
const LONG_INTEGER = /\d{16}/;
/** A JSON number literal, matched where the scan stands. */
const NUMBER = /-?\d+(\.\d+)?([eE][+-]?\d+)?/y;

/**
 * JSON.parse, except that an integer literal beyond 2^53 comes back as its digits (a string), not as
 * a rounded number. Strings are skipped as JSON defines them, so digits inside them stay as they are.
 */
export function parseJsonKeepingDigits(text: string): unknown {
  if (!LONG_INTEGER.test(text)) {
    return JSON.parse(text);
  }
  let out = '';
  let from = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      i += 1;
      while (i < text.length && text.charCodeAt(i) !== 0x22) {
        i += text.charCodeAt(i) === 0x5c /* \ */ ? 2 : 1;
      }
      i += 1;
      continue;
    }
    NUMBER.lastIndex = i;
    const number = c === 0x2d || (c >= 0x30 && c <= 0x39) ? NUMBER.exec(text) : null;
    if (!number) {
      i += 1;
      continue;
    }
    const literal = number[0];
    if (number[1] === undefined && number[2] === undefined && !Number.isSafeInteger(Number(literal))) {
      out += `${text.slice(from, i)}"${literal}"`;
      from = i + literal.length;
    }
    i += literal.length;
  }
  return JSON.parse(out + text.slice(from));
}
