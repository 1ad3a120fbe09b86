// update-push-token body (real-clients §4.8), also the legacy updatePushToken map of AND-1.1
// (token, platform, push_token, device_data, install_instance_id): a non-empty push_token.
import { charLength } from '../../../lib/validate.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { asRecord } from '../common.ts';
import { readInstallId, storable } from './common.ts';

const MAX_PUSH_TOKEN = 4096;

export function parseUpdatePushToken(body: unknown): { installInstanceId: string; pushToken: string } {
  const b = asRecord(body);
  const installInstanceId = readInstallId(b);
  const v = b.push_token;
  const pushToken = typeof v === 'string' ? storable(v.trim()) : '';
  if (pushToken === '' || charLength(pushToken) > MAX_PUSH_TOKEN) {
    throw new ApiError(400, MSG.pushTokenInvalid);
  }
  return { installInstanceId, pushToken };
}
