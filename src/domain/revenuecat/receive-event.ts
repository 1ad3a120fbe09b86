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
//  - SANDBOX events are not stored: reporting has no sandbox notion and test purchases would count.
//  - A refund first removes the refunded payment (as remove-captured-payment does: a sign -1 fact on
//    the capture's campaign and day, so revenue nets out), whoever RevenueCat names as the user.
import type { Deps } from '../../deps.ts';
import { decimalFromNumber } from '../../lib/money.ts';
import type { Project } from '../../store/postgres/projects.ts';
import { findRegistrations } from '../../store/postgres/registrations.ts';
import type { CaptureOutcome } from '../events/capture-event.ts';
import { capturePayment, type PaymentStatus, type PaymentType } from '../events/capture-payment.ts';
import { removePayments } from '../events/remove-payments.ts';
import { type RevenueCatEvent, revenueCatAction } from './map-event.ts';

export type RevenueCatResult = CaptureOutcome | 'sandbox' | 'test' | 'not_a_payment' | 'currency';

export type RevenueCatOutcome = {
  result: RevenueCatResult;
  /** The payment the event maps to; null for TEST and types that are not payments. */
  payment: { type: PaymentType; status: PaymentStatus } | null;
  refund: boolean;
  /** Payments a refund removed. */
  removed: number;
};

/** The amount as a decimal string in the project's currency; undefined when it cannot be given. */
function amountInProjectCurrency(
  project: Pick<Project, 'displayCurrency'>,
  e: Pick<RevenueCatEvent, 'price' | 'priceInPurchasedCurrency' | 'currency'>,
): string | undefined {
  const currency = project.displayCurrency.toUpperCase();
  const inPurchaseCurrency = e.currency?.toUpperCase() === currency ? e.priceInPurchasedCurrency : null;
  const value = inPurchaseCurrency ?? (currency === 'USD' || !e.price ? (e.price ?? 0) : undefined);
  // A refund's price is negative: the amount is what moved, either way.
  return value === undefined ? undefined : decimalFromNumber(Math.abs(value));
}

async function firstRegisteredUser(deps: Pick<Deps, 'sql'>, projectId: string, ids: string[]) {
  const found = await findRegistrations(
    deps.sql,
    ids.map((userId) => ({ projectId, installInstanceId: null, userId })),
  );
  return found.find((r) => r.user)?.user?.userId;
}

export async function receiveRevenueCatEvent(
  deps: Pick<Deps, 'sql' | 'ch' | 'log' | 'now'>,
  project: Project,
  e: RevenueCatEvent,
): Promise<RevenueCatOutcome> {
  const action = revenueCatAction(e);
  if (action.kind !== 'payment') {
    return { result: action.kind, payment: null, refund: false, removed: 0 };
  }
  const base = { payment: { type: action.type, status: action.status }, refund: action.refund, removed: 0 };
  if (e.environment !== 'PRODUCTION') {
    return { ...base, result: 'sandbox' };
  }
  // The refunded payment goes whatever the refund's amount: it is removed whole (README), so a
  // refund in a currency the project cannot take still removes what the app captured itself.
  const removed =
    action.refund && e.transactionId !== null
      ? await removePayments(deps, project, { paymentId: e.transactionId, userId: null })
      : 0;
  const amount = action.moneyMoved ? amountInProjectCurrency(project, e) : '0';
  if (amount === undefined) {
    return { ...base, removed, result: 'currency' };
  }
  const userId = await firstRegisteredUser(deps, project.id, e.userIds);
  if (userId === undefined) {
    return { ...base, removed, result: 'unregistered' };
  }
  const result = await capturePayment(deps, project, {
    installInstanceId: null,
    platform: '',
    userId,
    paymentId: action.byTransaction ? (e.transactionId ?? e.id) : e.id,
    amount,
    type: action.type,
    status: action.status,
    eventData: null,
  });
  return { ...base, removed, result };
}
