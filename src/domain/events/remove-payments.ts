// remove-captured-payment: a refund. With a payment_id, that payment of the project (and of the
// user, when user_id is given too); with only a user_id, every payment of the user. Each payment
// removed gets removed_at and a correcting `payments` fact: sign -1, the same amount, type, status,
// payment_row, and the capture's time and day (recorded_at is now), so revenue nets to zero in
// every window. Only payments not removed yet are touched: a repeated call removes nothing more.
// The correction names its capture (enrichFrom), and the fact writer gives it the attribution the
// capture was written with, so it nets out on the same campaign even when the install's
// attribution changed since (decided after the capture went out organic), whether the capture is
// still in the outbox or in ClickHouse when the refund comes (domain/facts/removal-columns.ts).
import type { Deps } from '../../deps.ts';
import { trimDecimal } from '../../lib/money.ts';
import { insertOutboxRows } from '../../store/postgres/fact-outbox.ts';
import { markPaymentsRemoved } from '../../store/postgres/payments.ts';
import { asSql } from '../../store/postgres/pool.ts';
import type { Project } from '../../store/postgres/projects.ts';
import { paymentCorrection } from './payment-fact.ts';

export type RemovePaymentsInput = { paymentId: string | null; userId: string | null };

// Keeps each multi-row outbox insert well under Postgres's 65535 bind parameters.
const OUTBOX_CHUNK = 1000;

/** Returns how many payments were removed (0 when none matched or all were removed already). */
export async function removePayments(
  deps: Pick<Deps, 'sql' | 'now'>,
  project: Project,
  input: RemovePaymentsInput,
): Promise<number> {
  const now = deps.now();
  return deps.sql.begin(async (txh) => {
    const tx = asSql(txh);
    const removed = await markPaymentsRemoved(tx, project.id, input, new Date(now));
    const rows = removed.map((p) => paymentCorrection(project, p, { sign: -1, amount: trimDecimal(p.amount) }, now));
    for (let i = 0; i < rows.length; i += OUTBOX_CHUNK) {
      await insertOutboxRows(tx, rows.slice(i, i + OUTBOX_CHUNK));
    }
    return removed.length;
  });
}
