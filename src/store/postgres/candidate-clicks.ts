// What Postgres knows of an attribution batch's candidate clicks: which already decided an install
// (installs.click_id, indexed by migration 0033), and which campaigns were deleted and when. One
// statement each per batch, whatever the number of installs and projects.
import type { Sql } from './pool.ts';

/** Serialises the fingerprint saves of one click (pg_advisory_xact_lock class; the others: 7_301_010 to 014, 022). */
const CLICK_LOCK_CLASS = 7_301_016;

/** Of these (project, click id) pairs, those an install holds, as `${projectId}\n${clickId}`. */
export async function findAttributedClicks(
  sql: Sql,
  clicks: { projectId: string; clickId: string }[],
): Promise<Set<string>> {
  if (clicks.length === 0) {
    return new Set();
  }
  const rows = await sql<{ project_id: string; click_id: string }[]>`
    SELECT DISTINCT i.project_id, i.click_id
    FROM unnest(${clicks.map((c) => c.projectId)}::uuid[], ${clicks.map((c) => c.clickId)}::text[]) AS k (p, c)
      JOIN installs i ON i.project_id = k.p AND i.click_id = k.c`;
  return new Set(rows.map((r) => `${r.project_id}\n${r.click_id}`));
}

/** Of these campaign ids, the deleted ones with their deletion time (campaign ids are global). */
export async function findCampaignDeletions(sql: Sql, campaignIds: number[]): Promise<Map<number, Date>> {
  if (campaignIds.length === 0) {
    return new Map();
  }
  const rows = await sql<{ id: number; deleted_at: Date }[]>`
    SELECT id, deleted_at FROM campaigns WHERE id = ANY(${campaignIds}::int[]) AND deleted_at IS NOT NULL`;
  return new Map(rows.map((r) => [Number(r.id), r.deleted_at]));
}

/**
 * Takes the click for a fingerprint decision of this install: false when another install already
 * holds it. The lock (until the transaction ends) makes a concurrent save of the same click wait for
 * this one's commit, and the check after it, a statement of its own, sees what that save committed.
 * Two bodies of one transaction (group commit) must run one after the other (sql.begin, not
 * beginPipelined), so the second's check sees the first's save.
 */
export async function claimClickForFingerprint(
  tx: Sql,
  projectId: string,
  clickId: string,
  installInstanceId: string,
): Promise<boolean> {
  await tx`SELECT pg_advisory_xact_lock(${CLICK_LOCK_CLASS}::int, hashtext(${projectId} || ${clickId}))`;
  const [row] = await tx<{ taken: boolean }[]>`
    SELECT EXISTS (SELECT 1 FROM installs WHERE project_id = ${projectId} AND click_id = ${clickId}
      AND install_instance_id <> ${installInstanceId}) AS taken`;
  return row?.taken === false;
}
