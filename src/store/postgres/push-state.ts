// Uninstall tracking state on installs: the daily pass's keyset page of push targets, its claim on
// them while it sends, the per-day result updates (each at most once per UTC day, so a rerun of a
// day's pass counts nothing twice) and the uninstall mark. Push tokens are read and matched here
// only; never logged.
import type { Sql } from './pool.ts';

export type PushTargetRow = {
  projectId: string;
  installInstanceId: string;
  token: string;
  platform: string;
  /** Claimed by a pass that is sending it (migration 0031): not this pass's to push now. */
  held: boolean;
};
export type PushCursor = { projectId: string; installInstanceId: string };

const keyset = (after: PushCursor | null) => ({
  p: after?.projectId ?? '00000000-0000-0000-0000-000000000000',
  i: after?.installInstanceId ?? '',
});

/** Installs with a token, not uninstalled, not yet pushed on `day`, after the cursor. */
export async function listPushTargets(
  sql: Sql,
  after: PushCursor | null,
  day: string,
  limit: number,
): Promise<PushTargetRow[]> {
  const { p, i } = keyset(after);
  const rows = await sql`SELECT project_id, install_instance_id, push_token, platform,
      COALESCE(push_claimed_until > now(), false) AS held FROM installs
    WHERE push_token IS NOT NULL AND (project_id, install_instance_id) > (${p}::uuid, ${i})
      AND uninstalled_at IS NULL AND (last_push_day IS NULL OR last_push_day < ${day}::date)
    ORDER BY project_id, install_instance_id LIMIT ${limit}`;
  return rows.map((r) => ({
    projectId: r.project_id as string,
    installInstanceId: r.install_instance_id as string,
    token: r.push_token as string,
    platform: r.platform as string,
    held: r.held as boolean,
  }));
}

export const pushKey = (projectId: string, installInstanceId: string): string => `${projectId}\n${installInstanceId}`;

/**
 * Claims targets for `leaseMinutes` (Postgres clock) before they are sent, so a second pass of the
 * day skips them: only installs still due, holding the token read, and claimed by no live pass.
 * Answers the claimed ones' keys (pushKey). Two passes claiming one install at once: the later
 * UPDATE waits for the earlier's row lock, then sees the claim and leaves the row.
 */
export async function claimPushTargets(
  sql: Sql,
  targets: readonly { projectId: string; installInstanceId: string; token: string }[],
  day: string,
  leaseMinutes: number,
): Promise<Set<string>> {
  if (targets.length === 0) {
    return new Set();
  }
  const rows = await sql`UPDATE installs i SET push_claimed_until = now() + make_interval(mins => ${leaseMinutes})
    FROM unnest(${targets.map((t) => t.projectId)}::uuid[], ${targets.map((t) => t.installInstanceId)}::text[],
      ${targets.map((t) => t.token)}::text[]) AS s (p, iid, token)
    WHERE i.project_id = s.p AND i.install_instance_id = s.iid AND i.push_token = s.token
      AND i.uninstalled_at IS NULL AND (i.last_push_day IS NULL OR i.last_push_day < ${day}::date)
      AND (i.push_claimed_until IS NULL OR i.push_claimed_until <= now())
    RETURNING i.project_id, i.install_instance_id`;
  return new Set(rows.map((r) => pushKey(r.project_id as string, r.install_instance_id as string)));
}

/** Installs after the cursor, of these projects, still due on `day` and claimed by a live pass. */
export async function countHeldPushTargets(
  sql: Sql,
  after: PushCursor | null,
  day: string,
  projectIds: readonly string[],
): Promise<number> {
  const { p, i } = keyset(after);
  const [r] = await sql`SELECT count(*)::int AS n FROM installs
    WHERE push_token IS NOT NULL AND (project_id, install_instance_id) > (${p}::uuid, ${i})
      AND project_id = ANY(${projectIds as string[]}::uuid[])
      AND uninstalled_at IS NULL AND (last_push_day IS NULL OR last_push_day < ${day}::date)
      AND push_claimed_until > now()`;
  return (r?.n as number | undefined) ?? 0;
}

/**
 * Gives claimed installs back (their push answered an error, or their token changed meanwhile): a
 * later pass of the day tries them again.
 */
export async function releasePushClaims(sql: Sql, projectId: string, installInstanceIds: readonly string[]) {
  if (installInstanceIds.length === 0) {
    return;
  }
  await sql`UPDATE installs SET push_claimed_until = NULL
    WHERE project_id = ${projectId} AND install_instance_id = ANY(${installInstanceIds as string[]}::text[])
      AND push_claimed_until IS NOT NULL`;
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
// token's answer says nothing about it (nor marks the day pushed for it). Each answers the installs
// it updated: the claim of one it left is given back (releasePushClaims) for the new token's push.
export async function markPushDelivered(
  sql: Sql,
  projectId: string,
  sent: readonly PushedToken[],
  day: string,
  at: Date,
): Promise<string[]> {
  if (sent.length === 0) {
    return [];
  }
  const rows = await sql`UPDATE installs i SET push_failures = 0, last_push_at = ${at}, last_push_day = ${day}::date,
      push_claimed_until = NULL
    FROM unnest(${sent.map((s) => s.installInstanceId)}::text[], ${sent.map((s) => s.token)}::text[]) AS s (iid, token)
    WHERE i.project_id = ${projectId} AND i.install_instance_id = s.iid AND i.push_token = s.token
      AND i.last_push_day IS DISTINCT FROM ${day}::date
    RETURNING i.install_instance_id`;
  return rows.map((r) => r.install_instance_id as string);
}

/** Hours a failed push must come after the last counted push to count (see markPushFailed). */
export const MIN_HOURS_BETWEEN_FAILED_DAYS = 20;

export type FailedDays = {
  /** The installs updated (see markPushDelivered). */
  updated: string[];
  /** Those it marked uninstalled (`threshold` failed days). */
  gone: { installInstanceId: string; platform: string; failures: number }[];
};

/**
 * Counts a failed day; answers the installs it updated and those it marked uninstalled.
 * - A failed push less than MIN_HOURS_BETWEEN_FAILED_DAYS after the last counted push (delivered
 *   or failed: last_push_at) marks the day pushed and counts nothing: days are UTC dates, so a pass
 *   at 23:30 and the 03:00 passes of the next two days made three "days" of 27.5 hours.
 * - An app open since the last counted push (init and re-engagement move last_seen_at) breaks the
 *   run of failed days: this failure is the first of a new run (product-notes: 3 consecutive
 *   uninstalled days; a day the app was used is not one). Read here, so init pays nothing for it.
 */
export async function markPushFailed(
  sql: Sql,
  projectId: string,
  sent: readonly PushedToken[],
  day: string,
  at: Date,
  threshold: number,
): Promise<FailedDays> {
  if (sent.length === 0) {
    return { updated: [], gone: [] };
  }
  const counted = sql`(i.last_push_at IS NULL
    OR i.last_push_at <= ${at}::timestamptz - make_interval(hours => ${MIN_HOURS_BETWEEN_FAILED_DAYS}))`;
  const next = sql`(CASE WHEN i.last_seen_at > i.last_push_at THEN 1 ELSE i.push_failures + 1 END)`;
  const rows = await sql`UPDATE installs i SET
      push_failures = CASE WHEN ${counted} THEN ${next} ELSE i.push_failures END,
      last_push_at = CASE WHEN ${counted} THEN ${at}::timestamptz ELSE i.last_push_at END,
      last_push_day = ${day}::date, push_claimed_until = NULL,
      uninstalled_at = CASE WHEN ${counted} AND ${next} >= ${threshold} THEN ${at}::timestamptz ELSE i.uninstalled_at END
    FROM unnest(${sent.map((s) => s.installInstanceId)}::text[], ${sent.map((s) => s.token)}::text[]) AS s (iid, token)
    WHERE i.project_id = ${projectId} AND i.install_instance_id = s.iid AND i.push_token = s.token
      AND i.last_push_day IS DISTINCT FROM ${day}::date AND i.uninstalled_at IS NULL
    RETURNING i.install_instance_id, i.platform, i.push_failures, i.uninstalled_at IS NOT NULL AS gone`;
  return {
    updated: rows.map((r) => r.install_instance_id as string),
    gone: rows
      .filter((r) => r.gone as boolean)
      .map((r) => ({
        installInstanceId: r.install_instance_id as string,
        platform: r.platform as string,
        failures: r.push_failures as number,
      })),
  };
}

/**
 * The install is in use: clears its uninstall mark and its count of failed days. Answers its
 * platform and whether it was marked uninstalled when there was anything to clear; an install with
 * neither costs the statement only (callers run it only when their read saw something to clear).
 */
export async function clearUninstall(
  sql: Sql,
  projectId: string,
  installInstanceId: string,
): Promise<{ platform: string; wasUninstalled: boolean } | undefined> {
  // RETURNING sees the new row: the old mark is read under the row lock the UPDATE then takes.
  const [r] = await sql`WITH old AS (SELECT uninstalled_at IS NOT NULL AS was FROM installs
      WHERE project_id = ${projectId} AND install_instance_id = ${installInstanceId}
        AND (uninstalled_at IS NOT NULL OR push_failures > 0) FOR UPDATE)
    UPDATE installs SET uninstalled_at = NULL, push_failures = 0
    WHERE project_id = ${projectId} AND install_instance_id = ${installInstanceId} AND EXISTS (SELECT 1 FROM old)
    RETURNING platform, (SELECT was FROM old) AS was_uninstalled`;
  return r ? { platform: r.platform as string, wasUninstalled: r.was_uninstalled as boolean } : undefined;
}
