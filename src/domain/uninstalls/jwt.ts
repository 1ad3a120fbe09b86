// Compact JWS signing for the push services: RS256 (Google service-account assertion) and ES256
// (APNs provider token, signature in the raw r|s form JOSE expects).
import { createPrivateKey, sign } from 'node:crypto';

const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');

export function signJwt(
  alg: 'RS256' | 'ES256',
  header: Record<string, unknown>,
  claims: Record<string, unknown>,
  pem: string,
): string {
  const input = `${b64({ alg, typ: 'JWT', ...header })}.${b64(claims)}`;
  const key = createPrivateKey(pem);
  const sig =
    alg === 'RS256'
      ? sign('sha256', Buffer.from(input), key)
      : sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' });
  return `${input}.${sig.toString('base64url')}`;
}
