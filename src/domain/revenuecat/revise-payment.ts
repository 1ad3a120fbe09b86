// A RevenueCat refund or its reversal changes what a payment counts: it is removed whole, lowered
// by a partial refund, or given back. Postgres gets the new amount and removed_at; ClickHouse gets
// correction facts on the capture's payment_row, type, status, time and day, naming the capture
// (enrichFrom) so the writer lands them on the capture's campaign, as remove-payments does: sign -1
// for what the payment counted, sign +1 for what it counts now. Revenue then moves by the
// difference, and revenue_events (a sum of signs) by -1 for a removal, +1 for a payment given
// back, and 0 for a partial refund (the payment still counts once, for less).
import { insertOutboxRows, type OutboxRow } from '../../store/postgres/fact-outbox.ts';
import { type RefundablePayment, updatePaymentCounted } from '../../store/postgres/payments.ts';
import type { Sql } from '../../store/postgres/pool.ts';
import type { Project } from '../../store/postgres/projects.ts';
import { paymentCorrection } from '../events/payment-fact.ts';
import { fromUnits, toUnits } from './money-units.ts';

/**
 * Makes the payment (read FOR UPDATE in this transaction) count `to` units, or nothing when `to`
 * is null (removed). Writes nothing when that is what it counts already.
 */
export async function revisePayment(
  tx: Sql,
  project: Project,
  p: RefundablePayment,
  to: bigint | null,
  now: number,
): Promise<void> {
  const from = p.removed ? null : toUnits(p.amount);
  if (from === to) {
    return;
  }
  // A removed payment keeps the amount it counted, as remove-captured-payment leaves it.
  await updatePaymentCounted(tx, project.id, p.id, {
    amount: to === null ? p.amount : fromUnits(to),
    removedAt: to === null ? new Date(now) : null,
  });
  const rows: OutboxRow[] = [];
  if (from !== null) {
    rows.push(paymentCorrection(project, p, { sign: -1, amount: fromUnits(from) }, now));
  }
  if (to !== null) {
    rows.push(paymentCorrection(project, p, { sign: 1, amount: fromUnits(to) }, now));
  }
  await insertOutboxRows(tx, rows);
}
