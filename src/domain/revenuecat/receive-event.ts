// A RevenueCat webhook event of the project its token named (map-event.ts says what it becomes).
// A payment is stored exactly as capture-payment stores one (its server-side twin: no install, the
// user's registering install), so the rules are the same: only a user registered through trigger
// (else nothing is stored), a payment_id stored once per project (a retry of the event, which
// RevenueCat sends with the same id and transaction, stores nothing more), and a 2xx only once the
// payment and its fact are committed in Postgres.
//  - payment_id: the store's transaction_id for a purchase or renewal (else the event id), so an
//    app that also sends the purchase through capture-payment with that id counts it once, and a
//    refund finds it; the event id for the other types, whose transaction_id is the purchase's.
//  - user: RevenueCat says to look up app_user_id, original_app_user_id and the aliases; the first
//    of them trigger registered (one round trip for all).
//  - amount: in the project's currency (product notes: amounts in a single currency): the price in
//    the purchase currency when that is the project's, else RevenueCat's USD price when the project
//    counts in USD; otherwise it cannot be converted and nothing is stored. Free or unknown: 0.
//    Only a refund's price is negative ("can be negative for refunds"): a purchase with a negative
//    price is refused (400 naming the field) rather than counted as its opposite.
//  - SANDBOX events are not stored: reporting has no sandbox notion and test purchases would count.
//  - A refund is applied to the refunded payment whoever RevenueCat names as the user, now or when
//    the purchase arrives (settle-refunds.ts); REFUND_REVERSED gives it back (reverse-refunds.ts).
import type { Deps } from '../../deps.ts';
import { ApiError } from '../../http/errors.ts';
import { MSG } from '../../http/messages.ts';
import { decimalFromNumber, MAX_AMOUNT } from '../../lib/money.ts';
import type { Project } from '../../store/postgres/projects.ts';
import { findRegistrations } from '../../store/postgres/registrations.ts';
import type { CaptureOutcome } from '../events/capture-event.ts';
import { capturePayment, type PaymentStatus, type PaymentType } from '../events/capture-payment.ts';
import { type RevenueCatEvent, type RevenueCatPayment, revenueCatAction } from './map-event.ts';
import { reverseRefunds } from './reverse-refunds.ts';
import { type RefundSettlement, settleRefunds } from './settle-refunds.ts';

export type RevenueCatResult = CaptureOutcome | 'sandbox' | 'test' | 'not_a_payment' | 'currency' | 'refund_reversed';

export type RevenueCatOutcome = RefundSettlement & {
  result: RevenueCatResult;
  /** The payment the event maps to; null for TEST, REFUND_REVERSED and types that are not payments. */
  payment: { type: PaymentType; status: PaymentStatus } | null;
  refund: boolean;
  /** Payments a REFUND_REVERSED counted again (or counted more, after a partial refund). */
  restored: number;
};

const NOTHING = { removed: 0, reduced: 0, restored: 0 };

/** The amount as a decimal string in the project's currency; undefined when it cannot be given. */
function amountInProjectCurrency(
  project: Pick<Project, 'displayCurrency'>,
  e: Pick<RevenueCatEvent, 'price' | 'priceInPurchasedCurrency' | 'currency'>,
): string | undefined {
  const currency = project.displayCurrency.toUpperCase();
  const inPurchaseCurrency = e.currency?.toUpperCase() === currency ? e.priceInPurchasedCurrency : null;
  const value = inPurchaseCurrency ?? (currency === 'USD' || !e.price ? (e.price ?? 0) : undefined);
  // A refund's price is negative: the amount is what moved (purchases never get here negative).
  return value === undefined ? undefined : decimalFromNumber(Math.abs(value));
}

/** Money an event moved cannot be negative unless it is a refund. */
function refuseNegativePrice(e: RevenueCatEvent): void {
  for (const [field, value] of [
    ['price', e.price],
    ['price_in_purchased_currency', e.priceInPurchasedCurrency],
  ] as const) {
    if (value !== null && value < 0) {
      throw new ApiError(
        400,
        MSG.revenueCatFieldInvalid(field, `a number from 0 to ${MAX_AMOUNT} or null (negative only for a refund)`),
      );
    }
  }
}

async function firstRegisteredUser(deps: Pick<Deps, 'sql'>, projectId: string, ids: string[]) {
  const found = await findRegistrations(
    deps.sql,
    ids.map((userId) => ({ projectId, installInstanceId: null, userId })),
  );
  return found.find((r) => r.user)?.user?.userId;
}

/** A refund event's record (refunds: first of all) and the settlement of its transaction's refunds. */
async function settle(
  deps: Pick<Deps, 'sql' | 'now'>,
  project: Project,
  e: RevenueCatEvent,
  refund: { amount: string | undefined; userId: string | undefined } | null,
): Promise<RefundSettlement> {
  if (e.transactionId === null) {
    return NOTHING;
  }
  if (refund === null) {
    return settleRefunds(deps, project, e.transactionId);
  }
  // An amount RevenueCat does not know (null, 0) or that the project cannot take refunds it all.
  const amount = refund.amount !== undefined && refund.amount !== '0' ? refund.amount : null;
  return settleRefunds(deps, project, e.transactionId, { eventId: e.id, amount, userId: refund.userId ?? null });
}

async function storePayment(
  deps: Pick<Deps, 'sql' | 'now'>,
  project: Project,
  e: RevenueCatEvent,
  payment: RevenueCatPayment,
  stored: { amount: string | undefined; userId: string | undefined },
): Promise<CaptureOutcome | 'currency'> {
  if (stored.amount === undefined) {
    return 'currency';
  }
  if (stored.userId === undefined) {
    return 'unregistered';
  }
  return capturePayment(deps, project, {
    installInstanceId: null,
    platform: '',
    userId: stored.userId,
    paymentId: payment.byTransaction ? (e.transactionId ?? e.id) : e.id,
    amount: stored.amount,
    type: payment.type,
    status: payment.status,
    eventData: null,
  });
}

export async function receiveRevenueCatEvent(
  deps: Pick<Deps, 'sql' | 'ch' | 'log' | 'now'>,
  project: Project,
  e: RevenueCatEvent,
): Promise<RevenueCatOutcome> {
  const action = revenueCatAction(e);
  if (action.kind !== 'payment') {
    return { ...NOTHING, result: action.kind, payment: null, refund: false };
  }
  if (action.effect === 'reverse_refund') {
    const base = { ...NOTHING, payment: null, refund: false };
    if (e.environment !== 'PRODUCTION') {
      return { ...base, result: 'sandbox' };
    }
    const restored = e.transactionId === null ? 0 : await reverseRefunds(deps, project, e.transactionId);
    return { ...base, restored, result: 'refund_reversed' };
  }
  const refund = action.effect === 'refund';
  if (!refund && action.payment.moneyMoved) {
    refuseNegativePrice(e);
  }
  const base = { ...NOTHING, payment: { type: action.payment.type, status: action.payment.status }, refund };
  if (e.environment !== 'PRODUCTION') {
    return { ...base, result: 'sandbox' };
  }
  const amount = action.payment.moneyMoved ? amountInProjectCurrency(project, e) : '0';
  const userId = amount === undefined && !refund ? undefined : await firstRegisteredUser(deps, project.id, e.userIds);
  if (refund) {
    // The refund goes on the payment first, whatever becomes of its own record: a refund in a
    // currency the project cannot take, or naming no registered user, still refunds the payment.
    const settled = await settle(deps, project, e, { amount, userId });
    return { ...base, ...settled, result: await storePayment(deps, project, e, action.payment, { amount, userId }) };
  }
  // Stored or not (the app may have captured the purchase itself), a purchase then settles the
  // refunds that arrived before it.
  const result = await storePayment(deps, project, e, action.payment, { amount, userId });
  const settled = action.payment.byTransaction ? await settle(deps, project, e, null) : NOTHING;
  return { ...base, ...settled, result };
}
