// Reinstalls by device id: whether a device was installed before in the project, within the
// project's reattribution window. Every query is scoped by project.
import type { InstallRecord } from './installs.ts';
import type { Sql } from './pool.ts';

/** An install to check, and the earliest creation time of an earlier install that still counts. */
export type SeenBeforeCheck = { install: InstallRecord; since: Date };

/**
 * For each install, whether another install of its project created no later, and not before its
 * `since` (the reattribution window), had one of its device ids (a reinstall), in one statement.
 * One EXISTS per id, each on that id's own index: the earlier single OR of "id given and equal"
 * conditions could use none of them once the plan was generic and read every install of the
 * project (~4.7 ms per install at 4k installs). An install's created_at, not its last activity,
 * bounds the window, as the industry measures it from the install.
 */
export async function devicesSeenBefore(sql: Sql, checks: SeenBeforeCheck[]): Promise<boolean[]> {
  if (checks.length === 0) {
    return [];
  }
  const col = (f: (i: InstallRecord) => string | null) => checks.map((c) => f(c.install) || null);
  const rows = await sql<{ n: number; seen: boolean }[]>`
    SELECT k.n::int AS n, (
      EXISTS (SELECT 1 FROM installs o WHERE o.project_id = k.p AND o.gaid = k.gaid
        AND o.install_instance_id <> k.iid AND o.created_at <= k.t AND o.created_at >= k.since)
      OR EXISTS (SELECT 1 FROM installs o WHERE o.project_id = k.p AND o.idfa = k.idfa
        AND o.install_instance_id <> k.iid AND o.created_at <= k.t AND o.created_at >= k.since)
      OR EXISTS (SELECT 1 FROM installs o WHERE o.project_id = k.p AND o.idfv = k.idfv
        AND o.install_instance_id <> k.iid AND o.created_at <= k.t AND o.created_at >= k.since)
      OR EXISTS (SELECT 1 FROM installs o WHERE o.project_id = k.p AND o.android_id = k.aid
        AND o.install_instance_id <> k.iid AND o.created_at <= k.t AND o.created_at >= k.since)) AS seen
    FROM unnest(${checks.map((c) => c.install.projectId)}::uuid[],
      ${checks.map((c) => c.install.installInstanceId)}::text[],
      ${checks.map((c) => c.install.createdAt.toISOString())}::timestamptz[],
      ${checks.map((c) => c.since.toISOString())}::timestamptz[], ${col((i) => i.gaid)}::text[],
      ${col((i) => i.idfa)}::text[], ${col((i) => i.idfv)}::text[], ${col((i) => i.androidId)}::text[])
      WITH ORDINALITY AS k (p, iid, t, since, gaid, idfa, idfv, aid, n)`;
  const seen = new Map(rows.map((r) => [r.n, r.seen]));
  return checks.map((_, i) => seen.get(i + 1) ?? false);
}

/**
 * Marks a decided install a reinstall (a device id that came after its decision was seen before),
 * as a login does (users.ts tieInstallToUser); the decision itself is kept. True when it changed.
 */
export async function markReinstall(sql: Sql, projectId: string, installInstanceId: string): Promise<boolean> {
  const res = await sql`UPDATE installs SET is_reinstall = true
    WHERE project_id = ${projectId} AND install_instance_id = ${installInstanceId}
      AND attribution_status = 'decided' AND NOT is_reinstall`;
  return res.count === 1;
}
