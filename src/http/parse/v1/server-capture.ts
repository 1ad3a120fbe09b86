// Bodies of the server-side twins (docs api-reference/event-capture.mdx, revenue-tracking.mdx;
// real-clients §7): the client fields without install_instance_id, and user_id required for
// capture-event and capture-payment (the user's registering install is used). remove-payment takes
// the client's remove-captured-payment body as it is.
import type { CaptureEventInput } from '../../../domain/events/capture-event.ts';
import type { CapturePaymentInput } from '../../../domain/events/capture-payment.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { readEventFields } from '../client/capture-event.ts';
import { readPaymentFields } from '../client/capture-payment.ts';
import type { ClientBody } from '../client/common.ts';
import { readUserIdValue } from '../client/user-data.ts';
import { asRecord } from '../common.ts';

function requiredUserId(b: ClientBody): string {
  const id = readUserIdValue(b.user_id);
  if (id === undefined) {
    throw new ApiError(400, MSG.serverUserIdRequired);
  }
  return id;
}

export function parseServerCaptureEvent(body: unknown): CaptureEventInput {
  const b = asRecord(body);
  const event = readEventFields(b);
  return { installInstanceId: null, platform: '', userId: requiredUserId(b), ...event };
}

export function parseServerCapturePayment(body: unknown): CapturePaymentInput {
  const b = asRecord(body);
  const userId = requiredUserId(b);
  return { installInstanceId: null, platform: '', userId, ...readPaymentFields(b) };
}
