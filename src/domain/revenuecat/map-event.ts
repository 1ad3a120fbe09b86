// What a RevenueCat webhook event becomes (product notes "RevenueCat"; the vendor's mapping page
// analytics-integrations/revenuecat.mdx; RevenueCat's "Event Types and Fields"):
//   INITIAL_PURCHASE → FIRST_PAYMENT, RENEWAL → SUBSCRIPTION_RENEWED, NON_RENEWING_PURCHASE →
//   ONE_TIME (completed, the price is revenue); UNCANCELLATION, PRODUCT_CHANGE → SUBSCRIPTION_RENEWED
//   (completed, amount 0: no money moves, the charge of a product change arrives as its own
//   RENEWAL or INITIAL_PURCHASE, so counting the price again would count it twice); CANCELLATION →
//   SUBSCRIPTION_CANCELLED (cancelled), BILLING_ISSUE → SUBSCRIPTION_BILLING_ISSUE (failed), both 0.
//   RevenueCat has no REFUND type: a refund is a CANCELLATION with cancel_reason CUSTOMER_SUPPORT
//   (its price negative); it removes the refunded payment and is kept as SUBSCRIPTION_REFUNDED
//   (cancelled, the refunded amount).
//   TEST answers without storing; every other type (EXPIRATION, TRANSFER, SUBSCRIPTION_PAUSED,
//   SUBSCRIPTION_EXTENDED, TEMPORARY_ENTITLEMENT_GRANT, REFUND_REVERSED, INVOICE_ISSUANCE, ...,
//   and types RevenueCat adds later) is acknowledged and not stored: none is a payment.
import type { PaymentStatus, PaymentType } from '../events/capture-payment.ts';

/** A webhook event as the route read it (only the fields the mapping uses). */
export type RevenueCatEvent = {
  type: string;
  id: string;
  environment: string;
  /** app_user_id, original_app_user_id, then aliases: usable ids, distinct, in that order. */
  userIds: string[];
  transactionId: string | null;
  /** USD; null when RevenueCat does not know it. */
  price: number | null;
  priceInPurchasedCurrency: number | null;
  currency: string | null;
  cancelReason: string | null;
};

export type RevenueCatAction =
  | {
      kind: 'payment';
      type: PaymentType;
      status: PaymentStatus;
      /** The price is money this event moved (else the amount is 0). */
      moneyMoved: boolean;
      /** The payment_id is the store's transaction_id (else the event id). */
      byTransaction: boolean;
      refund: boolean;
    }
  | { kind: 'test' }
  | { kind: 'not_a_payment' };

const pay = (type: PaymentType, moneyMoved: boolean): RevenueCatAction => ({
  kind: 'payment',
  type,
  status: 'PAYMENT_COMPLETED',
  moneyMoved,
  byTransaction: moneyMoved,
  refund: false,
});
const lifecycle = (type: PaymentType, status: PaymentStatus): RevenueCatAction => ({
  kind: 'payment',
  type,
  status,
  moneyMoved: false,
  byTransaction: false,
  refund: false,
});

const BY_TYPE: Record<string, RevenueCatAction> = {
  INITIAL_PURCHASE: pay('FIRST_PAYMENT', true),
  RENEWAL: pay('SUBSCRIPTION_RENEWED', true),
  NON_RENEWING_PURCHASE: pay('ONE_TIME', true),
  UNCANCELLATION: pay('SUBSCRIPTION_RENEWED', false),
  PRODUCT_CHANGE: pay('SUBSCRIPTION_RENEWED', false),
  CANCELLATION: lifecycle('SUBSCRIPTION_CANCELLED', 'PAYMENT_CANCELLED'),
  BILLING_ISSUE: lifecycle('SUBSCRIPTION_BILLING_ISSUE', 'PAYMENT_FAILED'),
  TEST: { kind: 'test' },
};

const REFUND: RevenueCatAction = {
  kind: 'payment',
  type: 'SUBSCRIPTION_REFUNDED',
  status: 'PAYMENT_CANCELLED',
  moneyMoved: true,
  byTransaction: false,
  refund: true,
};

/** Whether the event is a refund: RevenueCat's cancellation reason for one, or a negative price. */
const isRefund = (e: Pick<RevenueCatEvent, 'cancelReason' | 'price'>): boolean =>
  e.cancelReason === 'CUSTOMER_SUPPORT' || (e.price !== null && e.price < 0);

export function revenueCatAction(e: Pick<RevenueCatEvent, 'type' | 'cancelReason' | 'price'>): RevenueCatAction {
  if (e.type === 'CANCELLATION' && isRefund(e)) {
    return REFUND;
  }
  return Object.hasOwn(BY_TYPE, e.type) ? (BY_TYPE[e.type] as RevenueCatAction) : { kind: 'not_a_payment' };
}
