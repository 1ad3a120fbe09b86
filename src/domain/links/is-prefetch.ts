// Whether a request for a link is a browser's or an app's prefetch rather than a tap. Prefetches
// announce themselves by header, not by User-Agent (they carry the visitor's own agent): Chrome's
// speculation rules and prerender send `Sec-Purpose: prefetch` (`prefetch;prerender`,
// `prefetch;anonymous-client-ip`), its <link rel=prefetch> and older browsers `Purpose: prefetch`,
// Safari's previews and Meta's in-app browsers (prefetching an ad's link when the ad is shown)
// `X-Purpose: preview`, and Firefox before Sec-Purpose `X-Moz: prefetch`.

type Headers = Record<string, string | string[] | undefined>;

const PREFETCH_HEADERS: [name: string, tokens: string[]][] = [
  ['sec-purpose', ['prefetch']],
  ['purpose', ['prefetch']],
  ['x-purpose', ['preview', 'prefetch']],
  ['x-moz', ['prefetch']],
];

/** The first token of each member of a header's list (`prefetch;prerender, x` → prefetch, x), lower-case. */
function tokensOf(value: string | string[] | undefined): string[] {
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  return text.split(',').map((member) => (member.split(';', 1)[0] ?? '').trim().toLowerCase());
}

export function isPrefetch(headers: Headers): boolean {
  return PREFETCH_HEADERS.some(([name, tokens]) => tokensOf(headers[name]).some((t) => tokens.includes(t)));
}
