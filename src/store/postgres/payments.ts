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
  return rows.map((r) => ({
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
  }));
}
