// The :user_id path parameter of the user endpoints: the caller's own id, matched exactly as the
// client routes stored it (NUL dropped, lone surrogates replaced), at most 256 characters.
import { charLength } from '../../../lib/validate.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { storable } from '../client/common.ts';

export function parseUserIdParam(params: unknown): string {
  const v = (params as { user_id?: unknown } | undefined)?.user_id;
  const id = typeof v === 'string' && charLength(v) <= 256 ? storable(v) : '';
  if (id === '') {
    throw new ApiError(400, MSG.userIdRequired);
  }
  return id;
}
