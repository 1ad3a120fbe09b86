// user_data as the SDKs send it (spec "user_data fields"; real-clients §6): `id` plus optional
// name / email / phone (SHA-256 hex when the app hashes PII), the first-time flag and created-at
// (inside user_data on real SDKs), third-party ids, and whatever else the app adds. Everything but
// id / name / email / phone is kept as sent (capped) and passed back by attributed-users.
import { idTextOfNumber } from '../../../lib/json-numbers.ts';
import { cutChars } from '../../../lib/storable.ts';
import { charLength } from '../../../lib/validate.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { type ClientBody, capObject, optionalString, storable } from './common.ts';

export type UserDataFields = {
  userId: string | null;
  name: string | null;
  email: string | null;
  phone: string | null;
  extras: Record<string, unknown>;
  isFirstTimeUser: boolean | null;
  userCreatedAt: string | null;
};

const KNOWN = new Set(['id', 'name', 'email', 'phone', 'device_data']);
const MAX_USER_ID = 256;

/** The user_data object; anything else (absent, null, a string, an array) is a 400. */
export function readUserDataObject(b: ClientBody): ClientBody {
  const v = b.user_data;
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw new ApiError(400, MSG.fieldMustBeObject('user_data'));
  }
  return v as ClientBody;
}

/**
 * A caller user id: a non-empty string (trimmed) or a number (as its text; not one past 2^53, which
 * arrives rounded and would merge two users); else undefined.
 */
export function readUserIdValue(v: unknown): string | undefined {
  const s = typeof v === 'number' ? (idTextOfNumber(v) ?? '') : typeof v === 'string' ? storable(v.trim()) : '';
  return s !== '' && charLength(s) <= MAX_USER_ID ? s : undefined;
}

/** true / false, also as the strings "true" / "false" (bridges stringify); anything else is unknown. */
export function readFlag(v: unknown): boolean | null {
  if (typeof v === 'boolean') {
    return v;
  }
  return v === 'true' ? true : v === 'false' ? false : null;
}

// RN's Android bridge sends "" for a JS null: an empty detail means "not given", never "erase".
function detail(u: ClientBody, key: string): string | null {
  if (typeof u[key] === 'object' && u[key] !== null) {
    throw new ApiError(400, MSG.fieldMustBeString(`user_data.${key}`));
  }
  const s = optionalString(u, key, 512)?.trim();
  return s ? s : null;
}

/** Reads user_data. `id` absent, null or "" gives userId null; another unusable id is a 400. */
export function readUserData(u: ClientBody): UserDataFields {
  const rawId = u.id;
  const absent = rawId === undefined || rawId === null || rawId === '';
  const userId = absent ? null : readUserIdValue(rawId);
  if (userId === undefined) {
    throw new ApiError(400, MSG.userDataIdRequired);
  }
  const extras: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(capObject(u) as ClientBody)) {
    if (!KNOWN.has(k)) {
      extras[k] = v;
    }
  }
  const createdAt = u.user_created_at;
  return {
    userId,
    name: detail(u, 'name'),
    email: detail(u, 'email'),
    phone: detail(u, 'phone'),
    extras,
    isFirstTimeUser: readFlag(u.is_first_time_user),
    userCreatedAt:
      typeof createdAt === 'string' || typeof createdAt === 'number' ? storable(cutChars(String(createdAt), 64)) : null,
  };
}
