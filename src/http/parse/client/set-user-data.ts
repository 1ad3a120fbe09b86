// set-user-data body (real-clients §4.4): user_data plus top-level device_data; iOS sends no
// platform. Without user_data.id the install's user is updated.
import type { UpdateUserDataInput } from '../../../domain/users/update-user-data.ts';
import { asRecord } from '../common.ts';
import { optionalObject, readInstallId } from './common.ts';
import { readUserData, readUserDataObject } from './user-data.ts';

export function parseSetUserData(body: unknown): UpdateUserDataInput {
  const b = asRecord(body);
  const installInstanceId = readInstallId(b);
  const u = readUserData(readUserDataObject(b));
  return {
    installInstanceId,
    userId: u.userId,
    name: u.name,
    email: u.email,
    phone: u.phone,
    extras: u.extras,
    deviceData: optionalObject(b, 'device_data'),
  };
}
