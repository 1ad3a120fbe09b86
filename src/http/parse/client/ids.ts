// Caller-chosen ids on event and payment bodies. Strings are kept as sent (only NUL and lone
// surrogates are made storable); a number is its JSON text (RN stringifies numeric event ids
// anyway), and one past 2^53 is refused (it arrives rounded, so two ids would merge); "" and null
// mean "no id" (RN and Android send "" for a missing payment_id, real-clients
// §4.6/§4.7). Anything longer than the cap is refused rather than cut, so two ids never merge.
import { idTextOfNumber } from '../../../lib/json-numbers.ts';
import { charLength } from '../../../lib/validate.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { type ClientBody, storable } from './common.ts';
import { readUserIdValue } from './user-data.ts';

export function optionalId(b: ClientBody, key: string, max: number, message: string): string | null {
  const v = b[key];
  if (v === undefined || v === null || v === '') {
    return null;
  }
  if (typeof v === 'number') {
    const id = idTextOfNumber(v);
    if (id === undefined) {
      throw new ApiError(400, message);
    }
    return id;
  }
  if (typeof v !== 'string' || charLength(v) > max) {
    throw new ApiError(400, message);
  }
  const id = storable(v);
  return id === '' ? null : id;
}

/**
 * user_id: read as trigger reads user_data.id (trimmed; a number is its text), so the same user
 * matches; null when absent, null or blank.
 */
export function optionalUserId(b: ClientBody): string | null {
  const v = b.user_id;
  if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) {
    return null;
  }
  const id = readUserIdValue(v);
  if (id === undefined) {
    throw new ApiError(400, MSG.userIdInvalid);
  }
  return id;
}
