// A vendor may quote the credential it was sent in its error answer (Amplitude: `Invalid API key:
// <key>`); what we store and log of that answer must not keep it. Every occurrence is replaced, as
// sent and percent-encoded (a form or a URL may carry it encoded, in either hex case).
export const REDACTED = '[redacted]';

const spellings = (secret: string): string[] => {
  const encoded = encodeURIComponent(secret);
  return [...new Set([secret, encoded, encoded.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase())])];
};

/** The text with every occurrence of each (non-empty) secret replaced by [redacted]. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret === '') {
      continue;
    }
    for (const s of spellings(secret)) {
      out = out.split(s).join(REDACTED);
    }
  }
  return out;
}
