// customer-user-id body (real-clients §4.11): {token, user_id, platform, install_instance_id}.
import type { SetCustomerUserIdInput } from '../../../domain/users/set-customer-user-id.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { asRecord } from '../common.ts';
import { readInstallId } from './common.ts';
import { readUserIdValue } from './user-data.ts';

export function parseCustomerUserId(body: unknown): SetCustomerUserIdInput {
  const b = asRecord(body);
  const installInstanceId = readInstallId(b);
  const userId = readUserIdValue(b.user_id);
  if (userId === undefined) {
    throw new ApiError(400, MSG.customerUserIdRequired);
  }
  return { installInstanceId, userId };
}
