// remove-captured-payment body (real-clients §4.7): payment_id and/or user_id; "" means absent
// (Android always sends both, "" when not given), and at least one is required. The install id
// and data.device_data are not needed to find payments and are not checked.
import type { RemovePaymentsInput } from '../../../domain/events/remove-payments.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { asRecord } from '../common.ts';
import { optionalId, optionalUserId } from './ids.ts';

export function parseRemoveCapturedPayment(body: unknown): RemovePaymentsInput {
  const b = asRecord(body);
  const paymentId = optionalId(b, 'payment_id', 256, MSG.paymentIdInvalid);
  const userId = optionalUserId(b);
  if (paymentId === null && userId === null) {
    throw new ApiError(400, MSG.paymentOrUserRequired);
  }
  return { paymentId, userId };
}
