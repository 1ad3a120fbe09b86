// remove-captured-payment: a refund. With a payment_id, that payment of the project (and of the
// user, when user_id is given too); with only a user_id, every payment of the user. Each payment
// removed gets removed_at and a correcting `payments` fact: sign -1, the same amount, type, status,
// payment_row, and the capture's time and day (recorded_at is now), so revenue nets to zero in
// every window. Only payments not removed yet are touched: a repeated call removes nothing more.
// The correction carries the attribution its capture was written with (read from ClickHouse), so
// it nets out on the same campaign even when the install's attribution changed since (decided
// after the capture went out organic); a capture still in the outbox, or ClickHouse away, leaves
// it to the writer, as for the capture.
import type { Deps } from '../../deps.ts';
import { newTimeId } from '../../lib/ids.ts';
import { trimDecimal } from '../../lib/money.ts';
import { findWrittenAttributions, type WrittenAttribution } from '../../store/clickhouse/captured-payments.ts';
import { insertOutboxRows, type OutboxRow } from '../../store/postgres/fact-outbox.ts';
import { markPaymentsRemoved, type RemovedPayment } from '../../store/postgres/payments.ts';
import { asSql } from '../../store/postgres/pool.ts';
import type { Project } from '../../store/postgres/projects.ts';
import { paymentFactRow } from './payment-fact.ts';

export type RemovePaymentsInput = { paymentId: string | null; userId: string | null };

// Keeps each multi-row outbox insert well under Postgres's 65535 bind parameters.
const OUTBOX_CHUNK = 1000;

function correction(project: Project, p: RemovedPayment, now: number, written?: WrittenAttribution): OutboxRow {
  const factId = `pay_${newTimeId()}`;
  const row = paymentFactRow(project, {
    factId,
    paymentRow: p.id,
    paymentId: p.paymentId,
    userId: p.userId,
    installInstanceId: p.installInstanceId,
    platform: p.platform,
    type: p.type,
    status: p.status,
    amount: trimDecimal(p.amount),
    sign: -1,
    capturedAtMs: p.capturedAt.getTime(),
    recordedAtMs: now,
  });
  return written
    ? { table: 'payments', factId, projectId: project.id, row: { ...row, ...written } }
    : { table: 'payments', factId, projectId: project.id, row, enrichInstall: p.installInstanceId };
}

/** The captures' written attribution; none (the writer decides, as before) when ClickHouse is away. */
async function writtenAttributions(deps: Pick<Deps, 'ch' | 'log'>, projectId: string, removed: RemovedPayment[]) {
  try {
    return await findWrittenAttributions(
      deps.ch,
      projectId,
      removed.map((p) => p.factId),
    );
  } catch (err) {
    deps.log.warn({ err: String(err) }, 'refund: the captures could not be read; their attribution is applied again');
    return new Map<string, WrittenAttribution>();
  }
}

/** Returns how many payments were removed (0 when none matched or all were removed already). */
export async function removePayments(
  deps: Pick<Deps, 'sql' | 'ch' | 'log' | 'now'>,
  project: Project,
  input: RemovePaymentsInput,
): Promise<number> {
  const now = deps.now();
  return deps.sql.begin(async (txh) => {
    const tx = asSql(txh);
    const removed = await markPaymentsRemoved(tx, project.id, input, new Date(now));
    const written = await writtenAttributions(deps, project.id, removed);
    const rows = removed.map((p) => correction(project, p, now, written.get(p.factId)));
    for (let i = 0; i < rows.length; i += OUTBOX_CHUNK) {
      await insertOutboxRows(tx, rows.slice(i, i + OUTBOX_CHUNK));
    }
    return removed.length;
  });
}
