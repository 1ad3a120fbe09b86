// Uninstall tracking state on installs: the daily pass's keyset page of push targets, the
// per-day result updates (each at most once per UTC day, so a rerun of a day's pass counts
// nothing twice) and the uninstall mark. Push tokens are read and matched here only; never logged.
import type { Sql } from './pool.ts';

export type PushTargetRow = { projectId: string; installInstanceId: string; token: string; platform: string };
export type PushCursor = { projectId: string; installInstanceId: string };

/** Installs with a token, not uninstalled, not yet pushed on `day`, after the cursor. */
export async function listPushTargets(
  sql: Sql,
  after: PushCursor | null,
  day: string,
  limit: number,
): Promise<PushTargetRow[]> {
  const p = after?.projectId ?? '00000000-0000-0000-0000-000000000000';
  const i = after?.installInstanceId ?? '';
  const rows = await sql`SELECT project_id, install_instance_id, push_token, platform FROM installs
    WHERE push_token IS NOT NULL AND (project_id, install_instance_id) > (${p}::uuid, ${i})
      AND uninstalled_at IS NULL AND (last_push_day IS NULL OR last_push_day < ${day}::date)
    ORDER BY project_id, install_instance_id LIMIT ${limit}`;
  return rows.map((r) => ({
    projectId: r.project_id as string,
    installInstanceId: r.install_instance_id as string,
    token: r.push_token as string,
    platform: r.platform as string,
  }));
}

/**
 * Holds one push token of a project until the transaction ends. Two installs saving the same token
 * at once each cleared it from the installs committed before their statement, so both kept it
 * (two pushes a day, and one removal counted as two uninstalls); the later save now waits and
 * sees the earlier. The lock's first key is this lock's own (migrations lock with 0 there).
 */
export async function lockPushToken(sql: Sql, projectId: string, pushToken: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(7301100, hashtext(${projectId} || md5(${pushToken})))`;
}

/** A push sent: the install and the token it went to. */
export type PushedToken = { installInstanceId: string; token: string };

// Results apply only while the install still holds the token they were sent to: a token saved
// while the push to the old one was in flight starts its own count (savePushToken), and the old
// token's answer says nothing about it (nor marks the day pushed for it).
export async function markPushDelivered(
  sql: Sql,
  projectId: string,
  sent: readonly PushedToken[],
  day: string,
  at: Date,
): Promise<void> {
  if (sent.length === 0) {
    return;
  }
  await sql`UPDATE installs i SET push_failures = 0, last_push_at = ${at}, last_push_day = ${day}::date
    FROM unnest(${sent.map((s) => s.installInstanceId)}::text[], ${sent.map((s) => s.token)}::text[]) AS s (iid, token)
    WHERE i.project_id = ${projectId} AND i.install_instance_id = s.iid AND i.push_token = s.token
      AND i.last_push_day IS DISTINCT FROM ${day}::date`;
}

/** Counts a failed day; answers the installs that now reached `threshold` failed days. */
export async function markPushFailed(
  sql: Sql,
  projectId: string,
  sent: readonly PushedToken[],
  day: string,
  at: Date,
  threshold: number,
): Promise<{ installInstanceId: string; platform: string; failures: number }[]> {
  if (sent.length === 0) {
    return [];
  }
  const rows = await sql`UPDATE installs i SET push_failures = i.push_failures + 1, last_push_at = ${at},
      last_push_day = ${day}::date,
      uninstalled_at = CASE WHEN i.push_failures + 1 >= ${threshold} THEN ${at}::timestamptz ELSE i.uninstalled_at END
    FROM unnest(${sent.map((s) => s.installInstanceId)}::text[], ${sent.map((s) => s.token)}::text[]) AS s (iid, token)
    WHERE i.project_id = ${projectId} AND i.install_instance_id = s.iid AND i.push_token = s.token
      AND i.last_push_day IS DISTINCT FROM ${day}::date AND i.uninstalled_at IS NULL
    RETURNING i.install_instance_id, i.platform, i.push_failures`;
  return rows
    .filter((r) => (r.push_failures as number) >= threshold)
    .map((r) => ({
      installInstanceId: r.install_instance_id as string,
      platform: r.platform as string,
      failures: r.push_failures as number,
    }));
}

/** Clears an uninstall (the install is active again); answers its platform when one was cleared. */
export async function clearUninstall(
  sql: Sql,
  projectId: string,
  installInstanceId: string,
): Promise<{ platform: string } | undefined> {
  const [r] = await sql`UPDATE installs SET uninstalled_at = NULL, push_failures = 0
    WHERE project_id = ${projectId} AND install_instance_id = ${installInstanceId} AND uninstalled_at IS NOT NULL
    RETURNING platform`;
  return r ? { platform: r.platform as string } : undefined;
}
