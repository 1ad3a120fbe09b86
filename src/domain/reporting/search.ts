// search: a case-insensitive "contains" over campaign text fields (Postgres ILIKE). The caller's
// text is literal: LIKE's wildcards and its escape character are escaped, so `%` finds a name with
// a percent sign in it and never matches everything (catalog §4c).

/** Escapes `\`, `%` and `_` for a LIKE pattern whose ESCAPE character is `\`. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The ILIKE pattern matching any value that contains `text`. */
export function containsPattern(text: string): string {
  return `%${escapeLike(text)}%`;
}

/** Whether the search text may be a campaign link (then its display id is matched too). */
export function looksLikeLink(text: string): boolean {
  return /:\/\/|\?c=|\//.test(text);
}
