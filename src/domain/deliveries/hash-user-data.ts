// Meta Conversions API customer information: contact fields are normalized and SHA-256 hashed the
// way Meta's Business SDK does it (facebook-nodejs-business-sdk src/objects/serverside/utils.js):
// trim + lower-case; a value that already is 64-hex passes through unchanged; emails must look like
// an address; phones drop ` -@#<>'",;()+` and letters, then up to 2 leading zeros when the number
// is international, and must keep 7-15 characters. A value that fails is left out, never sent raw.
// (The SDK also passes MD5 through; Meta asks for SHA-256 and our fake enforces it, so we rehash.)
import { createHash } from 'node:crypto';

const SHA256_HEX = /^[a-f0-9]{64}$/;
const EMAIL_RE =
  /^[\w!#$%&'*+/=?^`{|}~-]+(?:\.[\w!#$%&'*+/=?^`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;
const PHONE_IGNORE = /[-@#<>'",; ]|\(|\)|\+|[a-z]/g;
const DROP_PREFIX_ZEROS = /^\+?0{0,2}/;
const US_PHONE = /^1\(?\d{3}\)?\d{7}$/;
const INTL_PHONE = /^\d{1,4}\(?\d{2,3}\)?\d{4,}$/;

export type ContactField = 'em' | 'ph' | 'external_id';

const sha256 = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');

function isInternational(phone: string): boolean {
  const p = phone.replace(DROP_PREFIX_ZEROS, '');
  if (p.startsWith('0')) {
    return false;
  }
  return p.startsWith('1') ? US_PHONE.test(p) : INTL_PHONE.test(p);
}

function normalizePhone(value: string): string | undefined {
  let p = value.replace(PHONE_IGNORE, '');
  if (isInternational(p)) {
    p = p.replace(DROP_PREFIX_ZEROS, '');
  }
  return p.length < 7 || p.length > 15 ? undefined : p;
}

/** The hashed form Meta expects, or undefined when the value is empty or malformed. */
export function hashContact(field: ContactField, raw: string | null | undefined): string | undefined {
  const v = (raw ?? '').trim().toLowerCase();
  if (v === '') {
    return undefined;
  }
  if (SHA256_HEX.test(v)) {
    return v;
  }
  if (field === 'em') {
    return EMAIL_RE.test(v) ? sha256(v) : undefined;
  }
  if (field === 'ph') {
    const p = normalizePhone(v);
    return p === undefined ? undefined : sha256(p);
  }
  return sha256(v);
}
