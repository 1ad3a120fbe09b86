// Fields every client body shares, read tolerantly (real-clients.md §1, §8): install ids are
// any non-empty string (iOS sends 20 characters, not a UUID; UUIDs are lower-cased so one install
// never becomes two), platform may be missing or a legacy value, device_data is capped.
import { cutChars, storable } from '../../../lib/storable.ts';
import { charLength } from '../../../lib/validate.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';

export type ClientBody = Record<string, unknown>;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// Postgres text and jsonb refuse NUL, and jsonb refuses a lone surrogate: one odd character from an
// SDK would turn into a 500, so client text is cleaned before storage (lib/storable.ts).
export { storable };

export function readInstallId(b: ClientBody): string {
  const v = b.install_instance_id;
  const id = typeof v === 'string' && charLength(v) <= 128 ? storable(v.trim()) : '';
  if (id === '') {
    throw new ApiError(400, MSG.installIdRequired);
  }
  return UUID_RE.test(id) ? id.toLowerCase() : id;
}

/** IOS / ANDROID upper-cased; legacy or unknown values are kept as sent (capped); absent is ''. */
export function readPlatform(b: ClientBody): string {
  const v = b.platform;
  return typeof v === 'string' ? storable(cutChars(v.trim().toUpperCase(), 32)) : '';
}

export function optionalString(b: ClientBody, key: string, max = 512): string | null {
  const v = b[key];
  if (v === undefined || v === null) {
    return null;
  }
  if (typeof v === 'number' || typeof v === 'boolean') {
    return String(v);
  }
  if (typeof v !== 'string') {
    throw new ApiError(400, MSG.fieldMustBeString(key));
  }
  return storable(cutChars(v, max));
}

const MAX_KEYS = 300;
const MAX_DEPTH = 10;
const MAX_STRING = 4096;
// Install referrers carry Meta's sealed payload as hex: with long (or non-Latin, \u-escaped) campaign,
// ad set and group names it passes 4,096, and a cut breaks the seal.
const MAX_REFERRER = 16_384;
const LONG_STRING_KEYS: ReadonlySet<string> = new Set(['install_ref', 'install_referrer']);

/**
 * Copies a JSON object keeping at most 300 keys per level, 10 levels and 4096 characters per string
 * (16,384 under the keys install_ref and install_referrer).
 */
export function capObject(value: unknown, depth = 0, maxString = MAX_STRING): unknown {
  if (typeof value === 'string') {
    return storable(cutChars(value, maxString));
  }
  if (value === null || typeof value !== 'object') {
    return typeof value === 'number' && !Number.isFinite(value) ? null : value;
  }
  if (depth >= MAX_DEPTH) {
    return null;
  }
  if (Array.isArray(value)) {
    return value.slice(0, MAX_KEYS).map((v) => capObject(v, depth + 1));
  }
  const out: Record<string, unknown> = {};
  let n = 0;
  for (const [k, v] of Object.entries(value)) {
    if (n++ >= MAX_KEYS) {
      break;
    }
    const key = storable(k);
    // '__pro\u0000to__' must not become a prototype once its NUL is gone.
    if (key !== '__proto__') {
      out[key] = capObject(v, depth + 1, LONG_STRING_KEYS.has(key) ? MAX_REFERRER : MAX_STRING);
    }
  }
  return out;
}

/** An optional object field; anything that is not an object (null, a string) counts as absent. */
export function optionalObject(b: ClientBody, key: string): Record<string, unknown> {
  const v = b[key];
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (capObject(v) as Record<string, unknown>) : {};
}
