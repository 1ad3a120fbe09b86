// Who an audience page's users are: the registered user (app_users: email and phone as the app
// sent them) and the advertising id (GAID, else IDFA) of their most recently seen install that has
// one shaped as an advertising id (a UUID, not all zeros). Users are the installs tied to them
// (installs.user_id) and the install they registered through. A user id without an app_users row
// (never registered, or deleted: the deletion removes the row before it reaches ClickHouse) is
// left out. `seenBefore` keeps only users none of whose installs opened the app (init, or a
// re-engagement: installs.last_seen_at) at or after it.
import type { Sql } from './pool.ts';

export type AudienceIdentityRow = { userId: string; email: string | null; phone: string | null; adId: string | null };

/**
 * An advertising id is a UUID (any case; all zeros means tracking is limited). An install can hold
 * something else an SDK sent ("unknown"): such an install must not hide an older one's real id.
 */
const AD_ID_SHAPE = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';

type Row = { user_id: string; email: string | null; phone: string | null; ad_id: string | null };

export async function findAudienceIdentities(
  sql: Sql,
  projectId: string,
  userIds: string[],
  seenBefore: Date | null,
): Promise<AudienceIdentityRow[]> {
  if (userIds.length === 0) {
    return [];
  }
  const inactive =
    seenBefore === null
      ? sql``
      : sql`AND NOT EXISTS (SELECT 1 FROM installs i
          WHERE i.project_id = ${projectId} AND (i.user_id = u.user_id OR i.install_instance_id = u.install_instance_id)
            AND i.last_seen_at >= ${seenBefore})`;
  const rows = await sql<Row[]>`
    SELECT u.user_id, u.email, u.phone, ad.ad_id
    FROM unnest(${userIds}::text[]) WITH ORDINALITY AS x(user_id, ord)
    JOIN app_users u ON u.project_id = ${projectId} AND u.user_id = x.user_id
    LEFT JOIN LATERAL (
      SELECT a.ad_id FROM installs i
      CROSS JOIN LATERAL (SELECT CASE
        WHEN i.gaid ~* ${AD_ID_SHAPE} AND i.gaid !~ '^[0-]+$' THEN i.gaid
        WHEN i.idfa ~* ${AD_ID_SHAPE} AND i.idfa !~ '^[0-]+$' THEN i.idfa END AS ad_id) a
      WHERE i.project_id = ${projectId} AND (i.user_id = u.user_id OR i.install_instance_id = u.install_instance_id)
        AND a.ad_id IS NOT NULL
      ORDER BY i.last_seen_at DESC, i.install_instance_id
      LIMIT 1
    ) ad ON true
    WHERE true ${inactive}
    ORDER BY x.ord`;
  return rows.map((r) => ({ userId: r.user_id, email: r.email, phone: r.phone, adId: r.ad_id }));
}
