// SQL of delivery rows held for their install's attribution (sql/migrations/0022_webhook_attribution.sql):
// a sign-up webhook written before the install was decided. The decision fills in the campaign
// fields and makes them due; a row whose hold ended first is filled (or ended) by the delivery job.
import type { Sql } from './pool.ts';

/** Whether the install has held rows (one index probe: most decisions have none). */
export async function hasHeldRows(sql: Sql, projectId: string, installInstanceId: string): Promise<boolean> {
  const rows = await sql`
    SELECT 1 FROM deliveries
    WHERE project_id = ${projectId} AND install_instance_id = ${installInstanceId} AND held_for_attribution LIMIT 1`;
  return rows.length > 0;
}

/**
 * What a decision adds to each held row's payload: webhook rows get the body's campaign fields,
 * analytics rows ('analytics:<vendor>') their `properties` (domain/analytics/analytics-properties.ts).
 */
export type HeldAttribution = { webhook: Record<string, unknown>; analytics: Record<string, unknown> };

/**
 * The install is decided: its held rows get the attribution fields and are due at once. Each gets a
 * new id, taken after the ids of the rows the decision queued (the install webhook), because a
 * destination's rows are sent in id order: the install before its sign-up. Rows a job holds a
 * lease on (their hold ended) are left to that job, except `claimedIds`, the calling job's own;
 * rows that went dead because the install was still undecided when their hold ended
 * (settle-held-deliveries.ts) are due again, untried. Returns how many rows were released.
 */
export async function releaseHeldRows(
  sql: Sql,
  projectId: string,
  installInstanceId: string,
  attribution: HeldAttribution,
  claimedIds: readonly string[] = [],
): Promise<number> {
  const webhook = sql.json(attribution.webhook as never);
  const analytics = sql.json(attribution.analytics as never);
  const rows = await sql`
    UPDATE deliveries d SET id = n.new_id,
      payload = d.payload || CASE WHEN d.destination LIKE 'analytics:%' THEN ${analytics}::jsonb ELSE ${webhook}::jsonb END,
      held_for_attribution = false, next_attempt_at = now(), status = 'pending', attempts = 0, last_error = NULL,
      finished_at = NULL, lease_until = NULL
    FROM (
      SELECT h.id, nextval(pg_get_serial_sequence('deliveries', 'id')) AS new_id
      FROM (
        SELECT id FROM deliveries
        WHERE project_id = ${projectId} AND install_instance_id = ${installInstanceId} AND held_for_attribution
          AND (status = 'dead' OR (status = 'pending' AND (lease_until IS NULL OR lease_until < now()))
            OR id = ANY(${claimedIds as string[]}::bigint[]))
        ORDER BY id FOR UPDATE) h
      ORDER BY h.id) n
    WHERE d.id = n.id
    RETURNING d.id`;
  return rows.length;
}

/**
 * Waits for a decision of the install in flight and keeps one from committing until the caller's
 * transaction ends (the decision UPDATEs the install's row, so a share lock on it serialises them).
 */
export async function lockInstallRow(tx: Sql, projectId: string, installInstanceId: string): Promise<void> {
  await tx`
    SELECT 1 FROM installs WHERE project_id = ${projectId} AND install_instance_id = ${installInstanceId} FOR SHARE`;
}
