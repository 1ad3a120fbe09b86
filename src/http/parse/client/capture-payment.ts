// capture-payment body (spec Rules 4-6; real-clients §4.6; catalog §4c). amount must be a JSON
// number from 0 to 1e20 ("10", -0.01 and 1e309 are refused; -0 is 0); more than 9 decimals are
// rounded half away from zero to 9 (numeric(38, 9)). type and status are exact and
// case-sensitive; absent, null or "" (RN's bridge turns null into "") take the defaults.
// payment_id "" means no id. event_data (an object; anything else is ignored) is not stored: it only
// carries the commerce fields of a Purchase forwarded to Meta. data.device_data is accepted and not stored.
import {
  type CapturePaymentInput,
  PAYMENT_STATUSES,
  PAYMENT_TYPES,
  type PaymentStatus,
  type PaymentType,
} from '../../../domain/events/capture-payment.ts';
import { revenueAmount } from '../../../lib/money.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { asRecord } from '../common.ts';
import { type ClientBody, capObject, readInstallId, readPlatform } from './common.ts';
import { optionalId, optionalUserId } from './ids.ts';

const MAX_PAYMENT_ID = 256;

function readEnum<T extends string>(v: unknown, allowed: readonly T[], fallback: T, message: string): T {
  if (v === undefined || v === null || v === '') {
    return fallback;
  }
  if (typeof v === 'string' && (allowed as readonly string[]).includes(v)) {
    return v as T;
  }
  throw new ApiError(400, message);
}

export type PaymentFields = Pick<CapturePaymentInput, 'amount' | 'type' | 'status' | 'paymentId' | 'eventData'>;

const commerceData = (v: unknown): Record<string, unknown> | null =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (capObject(v) as Record<string, unknown>) : null;

/** The payment itself, shared with the server-side twin POST /api/v1/capture-payment. */
export function readPaymentFields(b: ClientBody): PaymentFields {
  const amount = revenueAmount(b.amount);
  if (amount === undefined) {
    throw new ApiError(400, MSG.amountInvalid);
  }
  return {
    amount,
    type: readEnum<PaymentType>(b.type, PAYMENT_TYPES, 'DEFAULT', MSG.paymentTypeInvalid),
    status: readEnum<PaymentStatus>(b.status, PAYMENT_STATUSES, 'PAYMENT_COMPLETED', MSG.paymentStatusInvalid),
    paymentId: optionalId(b, 'payment_id', MAX_PAYMENT_ID, MSG.paymentIdInvalid),
    eventData: commerceData(b.event_data),
  };
}

export function parseCapturePayment(body: unknown): CapturePaymentInput {
  const b = asRecord(body);
  const installInstanceId = readInstallId(b);
  return { installInstanceId, platform: readPlatform(b), ...readPaymentFields(b), userId: optionalUserId(b) };
}
