// SQL of the delivery outbox (sql/migrations/0012_deliveries.sql). Rows are inserted in the
// transaction of the fact they deliver; a job claims due rows with a lease (SKIP LOCKED), so two
// workers never send the same row at once and a stalled worker's rows come back when the lease ends.
// A row is unique by md5(event_key) (0027): the key holds caller text of any length, and its size
// must never fail the fact's transaction.
import type { Sql } from './pool.ts';

export type NewDelivery = {
  projectId: string;
  destination: string;
  eventKey: string;
  /** Whose data the payload holds, so deleting a user deletes their deliveries too. */
  userId?: string | null;
  installInstanceId?: string | null;
  eventTime: Date;
  payload: Record<string, unknown>;
  productIds?: string[];
  /** A fact that failed the spec's field rules is stored as invalid, with its reason, and never sent. */
  invalidReason?: string;
  /** Held for its install's attribution (store/postgres/held-deliveries.ts) until then at most. */
  heldUntil?: Date;
};

export type Delivery = {
  id: string;
  projectId: string;
  destination: string;
  eventKey: string;
  eventTime: Date;
  payload: Record<string, unknown>;
  attempts: number;
  installInstanceId: string | null;
  /** Still waiting for its install's attribution when claimed (its hold ended first). */
  held: boolean;
};

export type DeliveryStatus = 'pending' | 'sent' | 'invalid' | 'stale' | 'dead';

const COLUMNS = [
  'project_id',
  'destination',
  'event_key',
  'user_id',
  'install_instance_id',
  'event_time',
  'payload',
  'product_ids',
  'status',
  'last_error',
] as const;
/** A held row is due when its hold ends, unless the decision releases it first. */
const HELD_COLUMNS = [...COLUMNS, 'next_attempt_at', 'held_for_attribution'] as const;

export async function insertDeliveries(sql: Sql, rows: NewDelivery[]): Promise<number> {
  const held = rows.filter((r) => r.heldUntil !== undefined);
  const due = rows.filter((r) => r.heldUntil === undefined);
  return (await insertRows(sql, due, COLUMNS)) + (await insertRows(sql, held, HELD_COLUMNS));
}

async function insertRows(
  sql: Sql,
  rows: NewDelivery[],
  columns: readonly (typeof HELD_COLUMNS)[number][],
): Promise<number> {
  if (rows.length === 0) {
    return 0;
  }
  const values = rows.map((r) => ({
    project_id: r.projectId,
    destination: r.destination,
    event_key: r.eventKey,
    user_id: r.userId ?? null,
    install_instance_id: r.installInstanceId ?? null,
    event_time: r.eventTime,
    payload: sql.json(r.payload as never),
    product_ids: r.productIds ?? [],
    status: r.invalidReason === undefined ? 'pending' : 'invalid',
    last_error: r.invalidReason ?? null,
    next_attempt_at: r.heldUntil ?? null,
    held_for_attribution: r.heldUntil !== undefined,
  }));
  const inserted = await sql`
    INSERT INTO deliveries ${sql(values, columns)}
    ON CONFLICT (project_id, destination, md5(event_key)) DO NOTHING RETURNING id`;
  return inserted.length;
}

type DeliveryRow = {
  id: string;
  project_id: string;
  destination: string;
  event_key: string;
  event_time: Date;
  payload: Record<string, unknown>;
  attempts: number;
  install_instance_id: string | null;
  held_for_attribution: boolean;
};

export async function claimDueDeliveries(
  sql: Sql,
  q: { projectId: string; destination: string; now: Date; limit: number; leaseMs: number },
): Promise<Delivery[]> {
  const lease = new Date(q.now.getTime() + q.leaseMs);
  const rows = await sql<DeliveryRow[]>`
    UPDATE deliveries d SET lease_until = ${lease}
    WHERE d.id IN (
      SELECT id FROM deliveries
      WHERE project_id = ${q.projectId} AND destination = ${q.destination} AND status = 'pending'
        AND next_attempt_at <= ${q.now} AND (lease_until IS NULL OR lease_until < ${q.now})
      ORDER BY id LIMIT ${q.limit} FOR UPDATE SKIP LOCKED)
    RETURNING d.id::text AS id, d.project_id, d.destination, d.event_key, d.event_time, d.payload, d.attempts,
      d.install_instance_id, d.held_for_attribution`;
  return rows
    .map((r) => ({
      id: r.id,
      projectId: r.project_id,
      destination: r.destination,
      eventKey: r.event_key,
      eventTime: r.event_time,
      payload: r.payload,
      attempts: r.attempts,
      installInstanceId: r.install_instance_id,
      held: r.held_for_attribution,
    }))
    .sort((a, b) => Number(a.id) - Number(b.id));
}

/** Final states: sent, stale, invalid or dead (the reason is kept for the operator). */
export async function finishDeliveries(
  sql: Sql,
  ids: string[],
  status: Exclude<DeliveryStatus, 'pending'>,
  reason: string | null,
  now: Date,
): Promise<void> {
  if (ids.length === 0) {
    return;
  }
  await sql`
    UPDATE deliveries SET status = ${status}, last_error = ${reason}, finished_at = ${now}, lease_until = NULL,
      attempts = attempts + ${status === 'sent' || status === 'dead' ? 1 : 0}
    WHERE id = ANY (${ids}::bigint[]) AND status = 'pending'`;
}

/** A failed attempt that may succeed later: back to pending after a delay, or dead past maxAttempts. */
export async function retryDeliveries(
  sql: Sql,
  ids: string[],
  q: { reason: string; nextAt: Date; maxAttempts: number; now: Date },
): Promise<number> {
  if (ids.length === 0) {
    return 0;
  }
  const rows = await sql<{ status: string }[]>`
    UPDATE deliveries SET attempts = attempts + 1, last_error = ${q.reason}, lease_until = NULL,
      next_attempt_at = ${q.nextAt},
      status = CASE WHEN attempts + 1 >= ${q.maxAttempts} THEN 'dead' ELSE 'pending' END,
      finished_at = CASE WHEN attempts + 1 >= ${q.maxAttempts} THEN ${q.now}::timestamptz ELSE NULL END
    WHERE id = ANY (${ids}::bigint[]) AND status = 'pending'
    RETURNING status`;
  return rows.filter((r) => r.status === 'dead').length;
}

/** Whether the row is still there to send (not deleted with its user, not ended meanwhile). */
export async function isPending(sql: Sql, id: string): Promise<boolean> {
  const rows = await sql`SELECT 1 FROM deliveries WHERE id = ${id}::bigint AND status = 'pending'`;
  return rows.length > 0;
}

/** Of the ids, those still pending (a user deletion removes its rows while a batch holds them). */
export async function findPendingIds(sql: Sql, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) {
    return new Set();
  }
  const rows = await sql<{ id: string }[]>`
    SELECT id::text AS id FROM deliveries WHERE id = ANY (${ids}::bigint[]) AND status = 'pending'`;
  return new Set(rows.map((r) => r.id));
}

/** Claimed rows given back unsent and untried (no attempt counted): due again at once. */
export async function releaseDeliveries(sql: Sql, ids: string[]): Promise<void> {
  if (ids.length === 0) {
    return;
  }
  await sql`UPDATE deliveries SET lease_until = NULL WHERE id = ANY (${ids}::bigint[]) AND status = 'pending'`;
}

export async function listDueDestinations(sql: Sql, now: Date): Promise<{ projectId: string; destination: string }[]> {
  const rows = await sql<{ project_id: string; destination: string }[]>`
    SELECT DISTINCT project_id, destination FROM deliveries
    WHERE status = 'pending' AND next_attempt_at <= ${now} AND (lease_until IS NULL OR lease_until < ${now})`;
  return rows.map((r) => ({ projectId: r.project_id, destination: r.destination }));
}

export type DeadLetter = {
  id: string;
  projectId: string;
  destination: string;
  eventKey: string;
  status: 'dead' | 'invalid';
  attempts: number;
  reason: string | null;
  finishedAt: Date | null;
};

export async function listDeadDeliveries(sql: Sql, projectId?: string, limit = 1000): Promise<DeadLetter[]> {
  const rows = await sql<
    {
      id: string;
      project_id: string;
      destination: string;
      event_key: string;
      status: 'dead' | 'invalid';
      attempts: number;
      last_error: string | null;
      finished_at: Date | null;
    }[]
  >`
    SELECT id::text AS id, project_id, destination, event_key, status, attempts, last_error, finished_at
    FROM deliveries WHERE status IN ('dead', 'invalid')
      ${projectId === undefined ? sql`` : sql`AND project_id = ${projectId}`}
    ORDER BY id LIMIT ${limit}`;
  return rows.map((r) => ({
    id: r.id,
    projectId: r.project_id,
    destination: r.destination,
    eventKey: r.event_key,
    status: r.status,
    attempts: r.attempts,
    reason: r.last_error,
    finishedAt: r.finished_at,
  }));
}

/** Dead letters (not invalid ones: they would fail the same checks) back to pending; their ids. */
export async function requeueDeadDeliveries(
  sql: Sql,
  q: { projectId?: string; ids?: string[]; now: Date },
): Promise<{ id: string; projectId: string; destination: string }[]> {
  const rows = await sql<{ id: string; project_id: string; destination: string }[]>`
    UPDATE deliveries SET status = 'pending', attempts = 0, next_attempt_at = ${q.now}, lease_until = NULL,
      finished_at = NULL
    WHERE status = 'dead'
      ${q.projectId === undefined ? sql`` : sql`AND project_id = ${q.projectId}`}
      ${q.ids === undefined ? sql`` : sql`AND id = ANY (${q.ids}::bigint[])`}
    RETURNING id::text AS id, project_id, destination`;
  return rows.map((r) => ({ id: r.id, projectId: r.project_id, destination: r.destination }));
}

export async function countDeliveriesByStatus(sql: Sql, projectId: string): Promise<Record<string, number>> {
  const rows = await sql<{ status: string; n: number }[]>`
    SELECT status, count(*)::int AS n FROM deliveries WHERE project_id = ${projectId} GROUP BY status`;
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}
