// Characters that change how text shows on a terminal rather than showing themselves: C0 (newline,
// ESC, BEL, ...), DEL, C1 (CSI U+009B starts an escape sequence on some terminals, NEL ends a line),
// the Unicode line and paragraph separators, and the bidi embeddings, overrides and isolates that
// reorder what follows (Trojan Source). Left alone: the bidi marks (U+200E, U+200F) and joiners
// (U+200D builds emoji), which right-to-left names and emoji need.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding these characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const CONTROL_ALL = new RegExp(CONTROL.source, 'g');
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Whether `s` holds a character CONTROL lists (a name pasted with its newline, a tab). */
export function hasControlChars(s: string): boolean {
  return CONTROL.test(s);
}

/**
 * `s` with each such character written as an escape (`\n`, `\x1b`, `\u202e`), so a value that came
 * from outside (an install id an SDK client sent, a receiver's answer) prints as one line of plain
 * text: it can neither forge a line of output nor send escape sequences to the terminal. A
 * backslash stays as it is: this is for reading, --json gives the exact value.
 */
export function escapeControlChars(s: string): string {
  return s.replace(CONTROL_ALL, (c) => {
    const code = c.charCodeAt(0);
    return NAMED[c] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`);
  });
}
