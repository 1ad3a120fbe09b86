// Applies RevenueCat refunds to the payment they refund (README "RevenueCat webhook"), whatever
// order the webhooks arrive in. A refund event is recorded first (revenuecat_refunds, once per
// event id: a retry records nothing more) and stays pending until the payment whose payment_id is
// its transaction_id is stored: a refund that arrives before its purchase is applied when the
// purchase arrives (a purchase settles its transaction's refunds too); one that names no registered
// user is recorded only when its payment is stored already. Applying one:
//  - the whole payment, or a refund of at least what it counts (or of an unknown amount: RevenueCat
//    gives a refund's price as 0 or null when it does not know it): the payment is removed;
//  - less than it counts (a partial refund): the payment counts the difference, still once;
//  - a payment removed already (remove-captured-payment): nothing more, and it says it took 0.
// Everything runs in one transaction under the payment_id's advisory lock, so a refund and its
// purchase arriving at once see each other: whichever takes the lock second applies the refund.
import type { Deps } from '../../deps.ts';
import {
  findPaymentForUpdate,
  findPaymentRefunds,
  insertPaymentRefund,
  lockRefundedPayment,
  updatePaymentRefund,
} from '../../store/postgres/payments.ts';
import { asSql } from '../../store/postgres/pool.ts';
import type { Project } from '../../store/postgres/projects.ts';
import { fromUnits, toUnits } from './money-units.ts';
import { revisePayment } from './revise-payment.ts';

export type RefundSettlement = {
  /** Payments the refunds removed whole (0 or 1). */
  removed: number;
  /** Payments a partial refund lowered and that still count (0 or 1). */
  reduced: number;
};

export type NewRefund = {
  eventId: string;
  /** Refunded, in the project currency; null when unknown or whole. */
  amount: string | null;
  /** The registered user the event named (a GDPR deletion finds the refund by it). */
  userId: string | null;
};

export async function settleRefunds(
  deps: Pick<Deps, 'sql' | 'now'>,
  project: Project,
  paymentId: string,
  refund?: NewRefund,
): Promise<RefundSettlement> {
  const now = deps.now();
  return deps.sql.begin(async (txh) => {
    const tx = asSql(txh);
    await lockRefundedPayment(tx, project.id, paymentId);
    // A refund naming no registered user waits for nothing: its purchase would not be stored either
    // (unregistered), so without the payment there is nothing to keep (and after a user's deletion,
    // a retried refund stores nothing about the deleted user's transaction).
    if (refund?.userId === null && !(await findPaymentForUpdate(tx, project.id, paymentId))) {
      return { removed: 0, reduced: 0 };
    }
    if (refund) {
      await insertPaymentRefund(tx, {
        projectId: project.id,
        eventId: refund.eventId,
        paymentId,
        userId: refund.userId,
        amount: refund.amount,
        receivedAt: new Date(now),
      });
    }
    const pending = await findPaymentRefunds(tx, project.id, paymentId, 'pending');
    const p = pending.length > 0 ? await findPaymentForUpdate(tx, project.id, paymentId) : undefined;
    if (!p) {
      return { removed: 0, reduced: 0 };
    }
    const before = p.removed ? null : toUnits(p.amount);
    let counted = before;
    for (const r of pending) {
      const asked = r.amount === null ? null : toUnits(r.amount);
      const whole = counted !== null && (asked === null || asked >= counted);
      const taken = counted === null ? 0n : whole ? counted : (asked as bigint);
      await updatePaymentRefund(
        tx,
        project.id,
        r.eventId,
        { state: 'applied', appliedAmount: fromUnits(taken), removedPayment: whole },
        new Date(now),
      );
      counted = whole || counted === null ? null : counted - taken;
    }
    await revisePayment(tx, project, p, counted, now);
    const removed = before !== null && counted === null ? 1 : 0;
    return { removed, reduced: counted !== null && counted !== before ? 1 : 0 };
  });
}
