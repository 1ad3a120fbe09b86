// What a RevenueCat webhook event becomes (product notes "RevenueCat"; the vendor's mapping page
// analytics-integrations/revenuecat.mdx; RevenueCat's "Event Types and Fields" and its customer
// history's event names):
//   INITIAL_PURCHASE → FIRST_PAYMENT, RENEWAL → SUBSCRIPTION_RENEWED, NON_RENEWING_PURCHASE →
//   ONE_TIME (completed, the price is revenue). A price of 0 is a free trial or free period
//   ("0 for free trials"): no money moved, so it is kept as initiated (the subscription started,
//   its first charge is to come), which no revenue, payment count or Purchase counts.
//   CANCELLATION → SUBSCRIPTION_CANCELLED (cancelled), BILLING_ISSUE → SUBSCRIPTION_BILLING_ISSUE
//   (failed), both 0. RevenueCat has no REFUND type: a refund is a CANCELLATION with cancel_reason
//   CUSTOMER_SUPPORT (its price negative: "can be negative for refunds"); it takes the refunded
//   amount off the refunded payment (settle-refunds.ts) and is kept as SUBSCRIPTION_REFUNDED
//   (cancelled, the refunded amount). REFUND_REVERSED gives back what the refunds of its
//   transaction took off (reverse-refunds.ts) and stores no payment of its own.
//   UNCANCELLATION ("re-enabled the auto-renew status") and PRODUCT_CHANGE ("changed renewal
//   preference") move no money: the vendor's mapping makes them SUBSCRIPTION_RENEWED, but a
//   completed payment of 0 counts a payment and a paying user that never paid, so they are not
//   stored; the charge of a new product arrives as its own RENEWAL or INITIAL_PURCHASE.
//   TEST answers without storing; every other type (EXPIRATION, TRANSFER, SUBSCRIPTION_PAUSED,
//   SUBSCRIPTION_EXTENDED, TEMPORARY_ENTITLEMENT_GRANT, VIRTUAL_CURRENCY_TRANSACTION,
//   INVOICE_ISSUANCE, ..., and types RevenueCat adds later) is acknowledged and not stored.
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

/** The payments row an event stores. */
export type RevenueCatPayment = {
  type: PaymentType;
  status: PaymentStatus;
  /** The price is money this event moved (else the amount is 0). */
  moneyMoved: boolean;
  /** The payment_id is the store's transaction_id (else the event id). */
  byTransaction: boolean;
};

/** `payment`: the event's fields are read and it acts on payments (parse/webhooks/revenuecat.ts). */
export type RevenueCatAction =
  | { kind: 'payment'; effect: 'capture' | 'refund'; payment: RevenueCatPayment }
  | { kind: 'payment'; effect: 'reverse_refund' }
  | { kind: 'test' }
  | { kind: 'not_a_payment' };

const capture = (payment: RevenueCatPayment): RevenueCatAction => ({ kind: 'payment', effect: 'capture', payment });
const pay = (type: PaymentType): RevenueCatAction =>
  capture({ type, status: 'PAYMENT_COMPLETED', moneyMoved: true, byTransaction: true });
const lifecycle = (type: PaymentType, status: PaymentStatus): RevenueCatAction =>
  capture({ type, status, moneyMoved: false, byTransaction: false });

const BY_TYPE: Record<string, RevenueCatAction> = {
  INITIAL_PURCHASE: pay('FIRST_PAYMENT'),
  RENEWAL: pay('SUBSCRIPTION_RENEWED'),
  NON_RENEWING_PURCHASE: pay('ONE_TIME'),
  CANCELLATION: lifecycle('SUBSCRIPTION_CANCELLED', 'PAYMENT_CANCELLED'),
  BILLING_ISSUE: lifecycle('SUBSCRIPTION_BILLING_ISSUE', 'PAYMENT_FAILED'),
  REFUND_REVERSED: { kind: 'payment', effect: 'reverse_refund' },
  TEST: { kind: 'test' },
};

const REFUND: RevenueCatAction = {
  kind: 'payment',
  effect: 'refund',
  payment: { type: 'SUBSCRIPTION_REFUNDED', status: 'PAYMENT_CANCELLED', moneyMoved: true, byTransaction: false },
};

type Priced = Pick<RevenueCatEvent, 'type' | 'cancelReason' | 'price'> &
  Partial<Pick<RevenueCatEvent, 'priceInPurchasedCurrency'>>;

/** Whether the event is a refund: RevenueCat's cancellation reason for one, or a negative price. */
const isRefund = (e: Priced): boolean => e.cancelReason === 'CUSTOMER_SUPPORT' || (e.price !== null && e.price < 0);

/** A free trial or free period: RevenueCat gives it the price 0 (null is an unknown price). */
const isFree = (e: Priced): boolean => e.price === 0 || e.priceInPurchasedCurrency === 0;

export function revenueCatAction(e: Priced): RevenueCatAction {
  if (e.type === 'CANCELLATION' && isRefund(e)) {
    return REFUND;
  }
  const action = Object.hasOwn(BY_TYPE, e.type) ? (BY_TYPE[e.type] as RevenueCatAction) : undefined;
  if (action === undefined) {
    return { kind: 'not_a_payment' };
  }
  if (action.kind === 'payment' && action.effect === 'capture' && action.payment.moneyMoved && isFree(e)) {
    return capture({ ...action.payment, status: 'PAYMENT_INITIATED' });
  }
  return action;
}
