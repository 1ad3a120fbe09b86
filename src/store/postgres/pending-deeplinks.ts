// Campaign links reported by handle-deeplink before the install's init was stored (sql 0035): kept
// per (project, install id) until the install's init takes them. Rows created before `staleBefore`
// are never used; each save deletes up to STALE_BATCH of them (of any project: they are unused).
import type { Sql } from './pool.ts';

const STALE_BATCH = 100;

export type PendingDeeplink = {
  projectId: string;
  installInstanceId: string;
  link: string;
  at: Date;
};

/**
 * Keeps `link` for the install unless it already has a current one (the first campaign link is
 * kept, as an install's init link is; a retry changes nothing), and drops old rows on the way.
 */
export async function savePendingDeeplink(sql: Sql, d: PendingDeeplink, staleBefore: Date): Promise<void> {
  await sql`
    WITH stale AS (
      DELETE FROM pending_deeplinks WHERE (project_id, install_instance_id) IN (
        SELECT project_id, install_instance_id FROM pending_deeplinks
        WHERE created_at < ${staleBefore}
          AND NOT (project_id = ${d.projectId} AND install_instance_id = ${d.installInstanceId})
        ORDER BY created_at LIMIT ${STALE_BATCH} FOR UPDATE SKIP LOCKED))
    INSERT INTO pending_deeplinks (project_id, install_instance_id, link, created_at)
    VALUES (${d.projectId}, ${d.installInstanceId}, ${d.link}, ${d.at})
    ON CONFLICT (project_id, install_instance_id) DO UPDATE SET link = EXCLUDED.link, created_at = EXCLUDED.created_at
      WHERE pending_deeplinks.created_at < ${staleBefore}`;
}

/** Removes the install's row and returns its link, unless it was created before `staleBefore`. */
export async function takePendingDeeplink(
  sql: Sql,
  projectId: string,
  installInstanceId: string,
  staleBefore: Date,
): Promise<string | undefined> {
  const [row] = await sql<{ link: string; created_at: Date }[]>`
    DELETE FROM pending_deeplinks WHERE project_id = ${projectId} AND install_instance_id = ${installInstanceId}
    RETURNING link, created_at`;
  return row && row.created_at >= staleBefore ? row.link : undefined;
}
