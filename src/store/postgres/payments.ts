// Captured payments (sql/migrations/0008_users_events_payments.sql). The unique constraint on
// (project_id, payment_id) decides duplicates, so concurrent sends of one payment_id store one row;
// a NULL payment_id never collides. Removal only marks rows: the correction is a fact (sign -1).
import type { Sql } from './pool.ts';

export type NewPayment = {
  projectId: string;
  paymentId: string | null;
  userId: string;
  installInstanceId: string;
  type: string;
  status: string;
  amount: string;
  factId: string;
  capturedAt: Date;
};

/**
 * Inserts the payment: 'duplicate' when its payment_id is already taken in the project, and
 * 'unregistered' when app_users no longer holds its user. The user was resolved before the
 * transaction and a GDPR deletion (domain/users/delete-user.ts) may have committed since: the user
 * is read again with FOR KEY SHARE, in the same statement, which waits for a deletion under way (it
 * deletes app_users first) and then finds the user gone; a deletion starting after it waits for this
 * transaction, then deletes what it wrote. (A foreign key takes the same lock, but its violation
 * aborts the transaction, and with it the request's whole commit group.)
 */
export async function insertPayment(sql: Sql, p: NewPayment): Promise<{ id: string } | 'duplicate' | 'unregistered'> {
  const [row] = await sql<{ id: string | null; registered: boolean }[]>`
    WITH registered AS (
      SELECT 1 FROM app_users WHERE project_id = ${p.projectId} AND user_id = ${p.userId} FOR KEY SHARE),
    stored AS (
      INSERT INTO payments (project_id, payment_id, user_id, install_instance_id, type, status, amount, fact_id, captured_at)
      SELECT ${p.projectId}::uuid, ${p.paymentId}::text, ${p.userId}::text, ${p.installInstanceId}::text,
        ${p.type}::text, ${p.status}::text, ${p.amount}::numeric, ${p.factId}::text, ${p.capturedAt}::timestamptz
      FROM registered
      ON CONFLICT ON CONSTRAINT payments_payment_id_unique DO NOTHING
      RETURNING id::text)
    SELECT (SELECT id FROM stored) AS id, EXISTS (SELECT 1 FROM registered) AS registered`;
  if (!row?.registered) {
    return 'unregistered';
  }
  return row.id === null ? 'duplicate' : { id: row.id };
}

export type RemovedPayment = {
  id: string;
  paymentId: string | null;
  userId: string;
  installInstanceId: string;
  type: string;
  status: string;
  amount: string;
  capturedAt: Date;
  /** The install's platform ('' when the install row is gone). */
  platform: string;
  /** The capture's fact id (its `payments` row in ClickHouse). */
  factId: string;
};

type RemovedRow = {
  id: string;
  payment_id: string | null;
  user_id: string;
  install_instance_id: string;
  type: string;
  status: string;
  amount: string;
  captured_at: Date;
  platform: string;
  fact_id: string;
};

/**
 * Marks the project's not-yet-removed payments matching payment_id and/or user_id as removed and
 * returns them. A row already removed (or being removed by a concurrent call, which re-checks
 * removed_at after the row lock) is never returned twice.
 */
export async function markPaymentsRemoved(
  sql: Sql,
  projectId: string,
  by: { paymentId: string | null; userId: string | null },
  removedAt: Date,
): Promise<RemovedPayment[]> {
  if (by.paymentId === null && by.userId === null) {
    throw new Error('markPaymentsRemoved needs a payment_id or a user_id');
  }
  // Separate fragments (not `$1 IS NULL OR …`) so each shape gets a plan that uses its index.
  const byPayment = by.paymentId !== null ? sql`AND payment_id = ${by.paymentId}` : sql``;
  const byUser = by.userId !== null ? sql`AND user_id = ${by.userId}` : sql``;
  const rows = await sql<RemovedRow[]>`
    WITH removed AS (
      UPDATE payments SET removed_at = ${removedAt}
      WHERE project_id = ${projectId} AND removed_at IS NULL ${byPayment} ${byUser}
      RETURNING id, payment_id, user_id, install_instance_id, type, status, amount, captured_at, fact_id)
    SELECT r.id::text, r.payment_id, r.user_id, r.install_instance_id, r.type, r.status, r.amount::text,
      r.captured_at, COALESCE(i.platform, '') AS platform, r.fact_id
    FROM removed r
    LEFT JOIN installs i ON i.project_id = ${projectId} AND i.install_instance_id = r.install_instance_id
    ORDER BY r.id`;
  return rows.map(removedPayment);
}

const removedPayment = (r: RemovedRow): RemovedPayment => ({
  id: r.id,
  paymentId: r.payment_id,
  userId: r.user_id,
  installInstanceId: r.install_instance_id,
  type: r.type,
  status: r.status,
  amount: r.amount,
  capturedAt: r.captured_at,
  platform: r.platform,
  factId: r.fact_id,
});

/** A payment as a RevenueCat refund or its reversal sees it (README "RevenueCat webhook"). */
export type RefundablePayment = RemovedPayment & { removed: boolean };

/**
 * The project's payment with this payment_id, locked until the transaction ends (a removal by
 * remove-captured-payment waits for it, then finds what this transaction left); undefined when none.
 */
export async function findPaymentForUpdate(
  sql: Sql,
  projectId: string,
  paymentId: string,
): Promise<RefundablePayment | undefined> {
  const [r] = await sql<(RemovedRow & { removed: boolean })[]>`
    SELECT p.id::text, p.payment_id, p.user_id, p.install_instance_id, p.type, p.status, p.amount::text,
      p.captured_at, COALESCE(i.platform, '') AS platform, p.fact_id, p.removed_at IS NOT NULL AS removed
    FROM payments p
    LEFT JOIN installs i ON i.project_id = p.project_id AND i.install_instance_id = p.install_instance_id
    WHERE p.project_id = ${projectId} AND p.payment_id = ${paymentId}
    FOR UPDATE OF p`;
  if (!r) {
    return undefined;
  }
  return { ...removedPayment(r), removed: r.removed };
}

/** Sets what a payment counts: its amount, and whether it is removed (removed_at). */
export async function updatePaymentCounted(
  sql: Sql,
  projectId: string,
  id: string,
  counted: { amount: string; removedAt: Date | null },
): Promise<void> {
  await sql`UPDATE payments SET amount = ${counted.amount}::numeric, removed_at = ${counted.removedAt}
    WHERE project_id = ${projectId} AND id = ${id}`;
}

// Advisory lock class of a RevenueCat refund's payment_id (the others: 7_301_001 to 003, 010 to
// 016, 022 and 7301100).
const REFUND_LOCK_CLASS = 7_301_024;

/**
 * Serialises, until the transaction ends, what touches the refunds of one payment_id: a refund and
 * the purchase it refunds may arrive at once, and each must see the other once it waited.
 */
export async function lockRefundedPayment(sql: Sql, projectId: string, paymentId: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(${REFUND_LOCK_CLASS}::int, hashtext(${projectId} || ${paymentId}))`;
}

export type PaymentRefund = {
  eventId: string;
  /** Refunded, in the project currency; null for the whole payment. */
  amount: string | null;
  state: 'pending' | 'applied' | 'reversed';
  appliedAmount: string | null;
  removedPayment: boolean;
};

/**
 * Records a refund event as pending; false when the event is recorded already (a retry). The user
 * is read again with FOR KEY SHARE, as insertPayment does, so a GDPR deletion under way (it deletes
 * app_users first) leaves the row without the user, and one starting later waits, then deletes it.
 */
export async function insertPaymentRefund(
  sql: Sql,
  r: {
    projectId: string;
    eventId: string;
    paymentId: string;
    userId: string | null;
    amount: string | null;
    receivedAt: Date;
  },
): Promise<boolean> {
  const rows = await sql`
    WITH registered AS (
      SELECT user_id FROM app_users WHERE project_id = ${r.projectId} AND user_id = ${r.userId} FOR KEY SHARE)
    INSERT INTO revenuecat_refunds (project_id, event_id, payment_id, user_id, amount, received_at)
    VALUES (${r.projectId}, ${r.eventId}, ${r.paymentId}, (SELECT user_id FROM registered), ${r.amount}::numeric,
      ${r.receivedAt})
    ON CONFLICT (project_id, event_id) DO NOTHING`;
  return rows.count === 1;
}

/**
 * The payment_id's refunds in one state, in the order they arrived, locked: before the payment, as
 * a user's deletion deletes the refunds of its payments before the payments (no lock cycle).
 */
export async function findPaymentRefunds(
  sql: Sql,
  projectId: string,
  paymentId: string,
  state: PaymentRefund['state'],
): Promise<PaymentRefund[]> {
  const rows = await sql<
    { event_id: string; amount: string | null; applied_amount: string | null; removed_payment: boolean }[]
  >`
    SELECT event_id, amount::text, applied_amount::text, removed_payment FROM revenuecat_refunds
    WHERE project_id = ${projectId} AND payment_id = ${paymentId} AND state = ${state}
    ORDER BY received_at, event_id
    FOR UPDATE`;
  return rows.map((r) => ({
    eventId: r.event_id,
    amount: r.amount,
    state,
    appliedAmount: r.applied_amount,
    removedPayment: r.removed_payment,
  }));
}

/** Moves a refund to `applied` (with what it took off) or `reversed`. */
export async function updatePaymentRefund(
  sql: Sql,
  projectId: string,
  eventId: string,
  to: { state: 'applied'; appliedAmount: string; removedPayment: boolean } | { state: 'reversed' },
  at: Date,
): Promise<void> {
  if (to.state === 'applied') {
    await sql`UPDATE revenuecat_refunds SET state = 'applied', applied_amount = ${to.appliedAmount}::numeric,
      removed_payment = ${to.removedPayment}, settled_at = ${at}
      WHERE project_id = ${projectId} AND event_id = ${eventId}`;
    return;
  }
  await sql`UPDATE revenuecat_refunds SET state = 'reversed', settled_at = ${at}
    WHERE project_id = ${projectId} AND event_id = ${eventId}`;
}
