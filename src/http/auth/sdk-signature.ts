// SDK request signing on /api/client (real-clients §2), run after the project token is known.
// Unsigned requests pass unless the project enforces signing. Signed ones (any signing header
// present) must verify: a known, active key of this project whose platform matches the body's,
// a timestamp within ±5 min, and an HMAC over the raw body bytes. A wrong signature is refused
// even when signing is not enforced: accepting it would hide a misconfigured or forged client.
import type { FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.ts';
import { type SignatureHeaders, verifySignature } from '../../domain/identity/verify-signature.ts';
import type { Project } from '../../store/postgres/projects.ts';
import { findSigningKey } from '../../store/postgres/signing-keys.ts';
import { ApiError } from '../errors.ts';
import { MSG } from '../messages.ts';
import { readPlatform } from '../parse/client/common.ts';
import { asRecord } from '../parse/common.ts';

// Our key ids are `lrk_` + 16 letters/digits; anything else cannot exist, so skip the lookup.
const KEY_ID_RE = /^[A-Za-z0-9_-]{1,64}$/;

type SignedHeaders = SignatureHeaders & { keyId: string };

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return typeof v === 'string' ? v.trim() : Array.isArray(v) ? '' : undefined;
}

/** 'absent' when the request carries no signing header; undefined when it carries some but not all. */
function readSignedHeaders(req: FastifyRequest): SignedHeaders | 'absent' | undefined {
  const keyId = header(req, 'x-key-id');
  const timestamp = header(req, 'x-timestamp');
  const signature = header(req, 'x-signature');
  const hmacAuth = /^hmac\b/i.test(header(req, 'authorization') ?? '');
  if (keyId === undefined && timestamp === undefined && signature === undefined && !hmacAuth) {
    return 'absent';
  }
  return keyId && timestamp && signature ? { keyId, timestamp, signature } : undefined;
}

function refuse(req: FastifyRequest, reason: string, keyId?: string): never {
  req.log.info({ reason, keyId }, 'sdk request signature refused');
  throw new ApiError(401, MSG.sdkSignatureInvalid);
}

export async function checkSdkSignature(deps: Pick<Deps, 'sql'>, req: FastifyRequest, project: Project): Promise<void> {
  const signed = readSignedHeaders(req);
  if (signed === 'absent') {
    if (project.enforceSdkSigning) {
      throw new ApiError(401, MSG.sdkSignatureRequired);
    }
    return;
  }
  if (!signed) {
    return refuse(req, 'incomplete_headers');
  }
  const key = KEY_ID_RE.test(signed.keyId) ? await findSigningKey(deps.sql, project.id, signed.keyId) : undefined;
  if (!key) {
    return refuse(req, 'unknown_key', signed.keyId);
  }
  if (!key.active) {
    return refuse(req, 'inactive_key', signed.keyId);
  }
  // Only the native platforms are compared: a missing platform (iOS set-user-data) or a legacy
  // wrapper value says nothing about which key the app was given.
  const platform = readPlatform(asRecord(req.body));
  if ((platform === 'IOS' || platform === 'ANDROID') && platform !== key.platform) {
    return refuse(req, 'platform_mismatch', signed.keyId);
  }
  const check = verifySignature({ rawBody: req.rawBody ?? Buffer.alloc(0), headers: signed, key, nowMs: Date.now() });
  if (!check.ok) {
    return refuse(req, check.reason, signed.keyId);
  }
}
