// What is kept of a vendor's answer (lib/redact-secret.ts) never holds the key it was sent: every
// occurrence is replaced, as sent and percent-encoded.
import { describe, expect, it } from 'vitest';
import { REDACTED, redactSecrets } from '../../src/lib/redact-secret.ts';

describe('redactSecrets', () => {
  it('when the answer quotes the key twice, then both are replaced and the rest is kept', () => {
    const text = '{"code":400,"error":"Invalid API key: k3y-0123456789"} (k3y-0123456789)';

    expect(redactSecrets(text, ['k3y-0123456789'])).toBe(
      `{"code":400,"error":"Invalid API key: ${REDACTED}"} (${REDACTED})`,
    );
  });

  it('when the answer quotes the key percent-encoded, in either hex case, then it is replaced', () => {
    const text = 'api_key=org%3Akey.0123 and org%3akey.0123';

    expect(redactSecrets(text, ['org:key.0123'])).toBe(`api_key=${REDACTED} and ${REDACTED}`);
  });

  it('when no secret is given or it is empty, then the text is unchanged', () => {
    expect(redactSecrets('nothing here', [])).toBe('nothing here');
    expect(redactSecrets('nothing here', [''])).toBe('nothing here');
  });
});
