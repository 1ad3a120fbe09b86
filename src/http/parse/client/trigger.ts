// trigger body (spec + real-clients §4.3). The spec's top-level is_first_time_customer /
// customer_created_at win over the SDKs' user_data.is_first_time_user / user_created_at when both
// come. `data` is a pass-through object (the SDKs send {...additionalData, device_data}): its
// device_data is stored with the user (a top-level device_data is the fallback); the whole object,
// capped and cleaned like device_data, goes only into the signup webhook's additional_data
// (real-clients §4.3), never into the user row or a log. iOS's time_since_app_install and
// Android's event:"SIGNUP" are accepted and not needed.
import type { RegisterUserInput } from '../../../domain/users/register-user.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { asRecord } from '../common.ts';
import { optionalObject, optionalString, readInstallId } from './common.ts';
import { readFlag, readUserData, readUserDataObject } from './user-data.ts';

export function parseTrigger(body: unknown): RegisterUserInput {
  const b = asRecord(body);
  const installInstanceId = readInstallId(b);
  const u = readUserData(readUserDataObject(b));
  if (u.userId === null) {
    throw new ApiError(400, MSG.userDataIdRequired);
  }
  const data = optionalObject(b, 'data');
  const nested = data.device_data;
  const deviceData =
    nested !== null && typeof nested === 'object' && !Array.isArray(nested)
      ? (nested as Record<string, unknown>)
      : optionalObject(b, 'device_data');
  const topCreatedAt = typeof b.customer_created_at === 'string' ? optionalString(b, 'customer_created_at', 64) : null;
  return {
    installInstanceId,
    userId: u.userId,
    name: u.name,
    email: u.email,
    phone: u.phone,
    extras: u.extras,
    deviceData,
    data,
    isFirstTimeUser: readFlag(b.is_first_time_customer) ?? u.isFirstTimeUser,
    userCreatedAt: topCreatedAt || u.userCreatedAt,
  };
}
