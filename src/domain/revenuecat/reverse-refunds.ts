// REFUND_REVERSED (README "RevenueCat webhook"): "a refund has been reversed" (App Store), for the
// transaction its transaction_id names. Each refund of that payment_id that was applied gives back
// what it took (settle-refunds.ts recorded it), the last one first: a removed payment counts again,
// a partially refunded one counts its refunded part again. A refund still pending (its purchase not
// stored yet) is never applied. A retry finds nothing left to reverse and changes nothing. A
// reversal that arrives before its refund does not stop the refund (RevenueCat retries for about
// two and a half hours; Apple reverses a refund days after it).
import type { Deps } from '../../deps.ts';
import {
  findPaymentForUpdate,
  findPaymentRefunds,
  lockRefundedPayment,
  updatePaymentRefund,
} from '../../store/postgres/payments.ts';
import { asSql } from '../../store/postgres/pool.ts';
import type { Project } from '../../store/postgres/projects.ts';
import { toUnits } from './money-units.ts';
import { revisePayment } from './revise-payment.ts';

/** Returns how many payments count again, or count more (0 or 1). */
export async function reverseRefunds(
  deps: Pick<Deps, 'sql' | 'now'>,
  project: Project,
  paymentId: string,
): Promise<number> {
  const now = deps.now();
  return deps.sql.begin(async (txh) => {
    const tx = asSql(txh);
    await lockRefundedPayment(tx, project.id, paymentId);
    const pending = await findPaymentRefunds(tx, project.id, paymentId, 'pending');
    const applied = await findPaymentRefunds(tx, project.id, paymentId, 'applied');
    for (const r of [...pending, ...applied]) {
      await updatePaymentRefund(tx, project.id, r.eventId, { state: 'reversed' }, new Date(now));
    }
    const p = applied.length > 0 ? await findPaymentForUpdate(tx, project.id, paymentId) : undefined;
    if (!p) {
      return 0;
    }
    const before = p.removed ? null : toUnits(p.amount);
    let counted = before;
    for (const r of applied.reverse()) {
      const taken = toUnits(r.appliedAmount ?? '0');
      if (r.removedPayment && counted === null) {
        counted = taken;
      } else if (!r.removedPayment && counted !== null) {
        counted += taken;
      }
    }
    await revisePayment(tx, project, p, counted, now);
    return counted !== before ? 1 : 0;
  });
}
