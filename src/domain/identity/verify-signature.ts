// SDK request signatures (real-clients §2), checked over the raw body bytes before anything is
// re-serialized: contentHash = base64(SHA-256(body)) or '' for an empty body, stringToSign =
// `<timestamp ms>\n<contentHash>`, signature = base64(HMAC-SHA256(UTF-8 secret as-is, stringToSign)).
// The SDKs define no skew window and send no nonce; we allow ±5 min around our clock.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_WINDOW_MS = 5 * 60 * 1000;

export type SignatureHeaders = { timestamp: string; signature: string };
export type SignatureFailure = 'bad_timestamp' | 'stale_timestamp' | 'bad_signature';
export type SignatureCheck = { ok: true } | { ok: false; reason: SignatureFailure };

const TIMESTAMP_RE = /^\d{1,15}$/;
// Standard base64; padding optional. Anything else (base64url, spaces, junk) is a bad signature.
const BASE64_RE = /^[A-Za-z0-9+/]{1,128}={0,2}$/;

export function verifySignature(input: {
  rawBody: Buffer;
  headers: SignatureHeaders;
  key: { secret: string };
  nowMs: number;
}): SignatureCheck {
  const { timestamp, signature } = input.headers;
  if (!TIMESTAMP_RE.test(timestamp)) {
    return { ok: false, reason: 'bad_timestamp' };
  }
  if (Math.abs(input.nowMs - Number(timestamp)) > SIGNATURE_WINDOW_MS) {
    return { ok: false, reason: 'stale_timestamp' };
  }
  if (!BASE64_RE.test(signature)) {
    return { ok: false, reason: 'bad_signature' };
  }
  const contentHash = input.rawBody.length === 0 ? '' : createHash('sha256').update(input.rawBody).digest('base64');
  const expected = createHmac('sha256', Buffer.from(input.key.secret, 'utf8'))
    .update(`${timestamp}\n${contentHash}`, 'utf8')
    .digest();
  const given = Buffer.from(signature, 'base64');
  // timingSafeEqual throws on unequal lengths; a length is no secret, so compare it first.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: 'bad_signature' };
  }
  return { ok: true };
}
