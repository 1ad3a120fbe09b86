// A RevenueCat webhook body (RevenueCat "Event Types and Fields"): {api_version, event: {...}}.
// Only `event.type` is required of every event: types that are not payments (and types RevenueCat
// adds later) are acknowledged whatever else they carry. An event that maps to a payment must carry
// what storing it needs, else 400 (RevenueCat retries, and the answer names the field): its id, the
// environment, a usable user id, and numbers (or null) for the prices. Unknown fields are ignored.
import { type RevenueCatEvent, revenueCatAction } from '../../../domain/revenuecat/map-event.ts';
import { MAX_AMOUNT } from '../../../lib/money.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { optionalId } from '../client/ids.ts';
import { readUserIdValue } from '../client/user-data.ts';
import { asRecord } from '../common.ts';

const MAX_ID = 256;
const MAX_TYPE = 64;
/** app_user_id, original_app_user_id and at most this many aliases are looked up. */
const MAX_USER_IDS = 20;

type Fields = Record<string, unknown>;

const ID_INVALID = MSG.revenueCatFieldInvalid('id', 'a non-empty string of at most 256 characters');
const TRANSACTION_ID_INVALID = MSG.revenueCatFieldInvalid(
  'transaction_id',
  'a string of at most 256 characters or null',
);

function readType(e: Fields): string {
  const t = e.type;
  if (typeof t !== 'string' || t.trim() === '' || t.length > MAX_TYPE) {
    throw new ApiError(400, MSG.revenueCatFieldInvalid('type', 'a non-empty string of at most 64 characters'));
  }
  return t.trim();
}

/** A price: a finite JSON number within ±MAX_AMOUNT, or null / absent (unknown). */
function readPrice(e: Fields, key: string): number | null {
  const v = e[key];
  if (v === undefined || v === null) {
    return null;
  }
  if (typeof v !== 'number' || !Number.isFinite(v) || Math.abs(v) > MAX_AMOUNT) {
    throw new ApiError(400, MSG.revenueCatFieldInvalid(key, `a number from -${MAX_AMOUNT} to ${MAX_AMOUNT} or null`));
  }
  return v;
}

function readText(e: Fields, key: string): string | null {
  const v = e[key];
  if (v === undefined || v === null) {
    return null;
  }
  if (typeof v !== 'string' || v.length > MAX_ID) {
    throw new ApiError(400, MSG.revenueCatFieldInvalid(key, 'a string of at most 256 characters or null'));
  }
  return v;
}

/** The ids RevenueCat knows the subscriber by, usable as user ids (trigger's rules), in order. */
function readUserIds(e: Fields): string[] {
  const aliases = Array.isArray(e.aliases) ? e.aliases : [];
  const ids = [e.app_user_id, e.original_app_user_id, ...aliases]
    .map((v) => (typeof v === 'string' ? readUserIdValue(v) : undefined))
    .filter((v): v is string => v !== undefined);
  const distinct = [...new Set(ids)].slice(0, MAX_USER_IDS + 2);
  if (distinct.length === 0) {
    throw new ApiError(400, MSG.revenueCatFieldInvalid('app_user_id', 'a non-empty string of at most 256 characters'));
  }
  return distinct;
}

function readEnvironment(e: Fields): string {
  if (e.environment !== 'PRODUCTION' && e.environment !== 'SANDBOX') {
    throw new ApiError(400, MSG.revenueCatFieldInvalid('environment', 'PRODUCTION or SANDBOX'));
  }
  return e.environment;
}

export function parseRevenueCatEvent(body: unknown): RevenueCatEvent {
  const b = asRecord(body);
  const e = b.event;
  if (typeof e !== 'object' || e === null || Array.isArray(e)) {
    throw new ApiError(400, MSG.revenueCatEventRequired);
  }
  const f = e as Fields;
  const type = readType(f);
  // Whether the type maps to a payment does not depend on the fields read below (a CANCELLATION is
  // one either way; they only tell a refund apart).
  if (revenueCatAction({ type, price: null, cancelReason: null }).kind !== 'payment') {
    return {
      type,
      id: '',
      environment: '',
      userIds: [],
      transactionId: null,
      price: null,
      priceInPurchasedCurrency: null,
      currency: null,
      cancelReason: null,
    };
  }
  const id = optionalId(f, 'id', MAX_ID, ID_INVALID);
  if (id === null) {
    throw new ApiError(400, ID_INVALID);
  }
  return {
    type,
    id,
    environment: readEnvironment(f),
    userIds: readUserIds(f),
    transactionId: optionalId(f, 'transaction_id', MAX_ID, TRANSACTION_ID_INVALID),
    price: readPrice(f, 'price'),
    priceInPurchasedCurrency: readPrice(f, 'price_in_purchased_currency'),
    currency: readText(f, 'currency'),
    cancelReason: readText(f, 'cancel_reason'),
  };
}
