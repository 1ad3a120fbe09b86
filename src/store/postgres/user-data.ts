// What Postgres holds about one app user, and its deletion (GDPR; domain/users/delete-user.ts).
// Every query is scoped by the project taken from the credential.
import type { Sql } from './pool.ts';

export type UserFootprint = {
  hasUser: boolean;
  /**
   * The user's installs: tied to the user, or the install that registered it unless another user
   * took it over; never an install another user registered through (a shared device: deleting the
   * user who logged in last took the first user's registration with it).
   */
  installIds: string[];
  /** Winning clicks of those installs (the click row carries the device's IP, user agent and ad id). */
  clickIds: string[];
  /** The installs' advertising ids (gaid, idfa): every click that carried one is the device's. */
  adIds: string[];
  payments: number;
};

type FactKeys = Pick<UserFootprint, 'installIds' | 'clickIds' | 'adIds'>;

export async function findUserFootprint(sql: Sql, projectId: string, userId: string): Promise<UserFootprint> {
  const [user] = await sql<{ install_instance_id: string }[]>`
    SELECT install_instance_id FROM app_users WHERE project_id = ${projectId} AND user_id = ${userId}`;
  const installs = await sql<
    { install_instance_id: string; click_id: string | null; gaid: string | null; idfa: string | null }[]
  >`
    SELECT install_instance_id, click_id, gaid, idfa FROM installs i
    WHERE project_id = ${projectId}
      AND (user_id = ${userId} OR (user_id IS NULL AND install_instance_id = ${user?.install_instance_id ?? null}))
      AND NOT ${registeredByOthers(sql, projectId, userId)}`;
  const [pay] = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM payments WHERE project_id = ${projectId} AND user_id = ${userId}`;
  return {
    hasUser: user !== undefined,
    installIds: installs.map((i) => i.install_instance_id),
    clickIds: installs.flatMap((i) => (i.click_id ? [i.click_id] : [])),
    adIds: [...new Set(installs.flatMap((i) => [i.gaid, i.idfa].filter((a): a is string => a !== null)))],
    payments: pay?.n ?? 0,
  };
}

/**
 * Outbox / dead-letter rows of the user: the row names the user, or names no user and belongs to
 * one of the installs, or is one of the user's clicks or a click carrying one of its ad ids.
 */
function userFacts(sql: Sql, projectId: string, userId: string, f: FactKeys) {
  return (alias: string) => sql`
    ${sql(alias)}.project_id = ${projectId} AND (
      ${sql(alias)}.row->>'user_id' = ${userId}
      OR (coalesce(${sql(alias)}.row->>'user_id', '') = ''
        AND ${sql(alias)}.row->>'install_instance_id' = ANY(${f.installIds}::text[]))
      OR (${sql(alias)}.fact_table = 'clicks' AND (${sql(alias)}.fact_id = ANY(${f.clickIds}::text[])
        OR ${sql(alias)}.row->>'ad_id' = ANY(${f.adIds}::text[]))))`;
}

/** Batches a fact writer holds that contain the user's facts (their inserts may be running). */
export async function findClaimedUserBatches(
  sql: Sql,
  projectId: string,
  userId: string,
  f: FactKeys,
): Promise<string[]> {
  const rows = await sql<{ batch_id: string }[]>`
    SELECT DISTINCT c.batch_id::text FROM fact_outbox o JOIN fact_claims c ON c.seq = o.seq
    WHERE ${userFacts(sql, projectId, userId, f)('o')}`;
  return rows.map((r) => r.batch_id);
}

/** Whether another user registered through install `i` (the alias in the calling statement). */
function registeredByOthers(sql: Sql, projectId: string, userId: string) {
  return sql`EXISTS (SELECT 1 FROM app_users u WHERE u.project_id = ${projectId}
    AND u.install_instance_id = i.install_instance_id AND u.user_id <> ${userId})`;
}

/**
 * The installs among `ids` that another user is tied to now or registered through (a shared
 * device): never deleted.
 */
export async function findInstallsOfOtherUsers(
  sql: Sql,
  projectId: string,
  userId: string,
  ids: string[],
): Promise<Set<string>> {
  const rows = await sql<{ install_instance_id: string }[]>`
    SELECT install_instance_id FROM installs i
    WHERE project_id = ${projectId} AND install_instance_id = ANY(${ids}::text[])
      AND ((user_id IS NOT NULL AND user_id <> ${userId}) OR ${registeredByOthers(sql, projectId, userId)})`;
  return new Set(rows.map((r) => r.install_instance_id));
}

export type UserRowsDeleted = {
  appUsers: number;
  installs: number;
  payments: number;
  factOutbox: number;
  factDeadLetters: number;
};

/**
 * Deletes the user's rows (call inside a transaction): the user, its installs, its payments, and
 * its facts still waiting in the outbox or dead-lettered. seen_event_ids stays: it holds opaque
 * client ids only, and keeping them stops a re-sent event from bringing the user's data back.
 */
export async function deleteUserRows(
  sql: Sql,
  projectId: string,
  userId: string,
  f: FactKeys,
): Promise<UserRowsDeleted> {
  const mine = userFacts(sql, projectId, userId, f);
  const outbox = await sql`DELETE FROM fact_outbox o WHERE ${mine('o')}`;
  const dead = await sql`DELETE FROM fact_dead_letters d WHERE ${mine('d')}`;
  const payments = await sql`DELETE FROM payments WHERE project_id = ${projectId} AND user_id = ${userId}`;
  // Queued or logged outgoing deliveries (webhook bodies hold the user's own fields).
  await sql`DELETE FROM deliveries WHERE project_id = ${projectId}
    AND (user_id = ${userId} OR install_instance_id = ANY(${f.installIds}::text[]))`;
  const installs = await sql`
    DELETE FROM installs WHERE project_id = ${projectId} AND install_instance_id = ANY(${f.installIds}::text[])`;
  // An install kept because another user registered through it goes back to that user (the latest
  // of them): tied to no one, its app's events, which name no user, would count for nobody.
  await sql`UPDATE installs i SET user_id = (
      SELECT u.user_id FROM app_users u WHERE u.project_id = ${projectId}
        AND u.install_instance_id = i.install_instance_id AND u.user_id <> ${userId}
      ORDER BY u.created_at DESC LIMIT 1)
    WHERE project_id = ${projectId} AND user_id = ${userId}`;
  const users = await sql`DELETE FROM app_users WHERE project_id = ${projectId} AND user_id = ${userId}`;
  return {
    appUsers: users.count,
    installs: installs.count,
    payments: payments.count,
    factOutbox: outbox.count,
    factDeadLetters: dead.count,
  };
}

/** What an unfinished deletion of the user had found (its installs and their ad ids), if any. */
export async function findUnfinishedDeletion(
  sql: Sql,
  projectId: string,
  userId: string,
): Promise<{ installIds: string[]; adIds: string[] } | undefined> {
  const [row] = await sql<{ install_ids: string[]; ad_ids: string[] }[]>`
    SELECT install_ids, ad_ids FROM user_deletions WHERE project_id = ${projectId} AND user_id = ${userId}`;
  return row && { installIds: row.install_ids, adIds: row.ad_ids };
}

/**
 * Keeps what the deletion found until ClickHouse is done (call in the transaction that deletes the
 * user's rows): a re-run after a failure still knows the ad ids Postgres no longer has.
 */
export async function markDeletionUnfinished(sql: Sql, projectId: string, userId: string, f: FactKeys): Promise<void> {
  await sql`
    INSERT INTO user_deletions (project_id, user_id, install_ids, ad_ids)
    VALUES (${projectId}, ${userId}, ${f.installIds}::text[], ${f.adIds}::text[])
    ON CONFLICT (project_id, user_id) DO UPDATE SET
      install_ids = ARRAY(SELECT DISTINCT unnest(user_deletions.install_ids || EXCLUDED.install_ids)),
      ad_ids = ARRAY(SELECT DISTINCT unnest(user_deletions.ad_ids || EXCLUDED.ad_ids))`;
}

export async function markDeletionFinished(sql: Sql, projectId: string, userId: string): Promise<void> {
  await sql`DELETE FROM user_deletions WHERE project_id = ${projectId} AND user_id = ${userId}`;
}

/** Whether any of the batches is still held by a writer (not yet deleted after its insert). */
export async function batchesStillClaimed(sql: Sql, batchIds: string[]): Promise<boolean> {
  if (batchIds.length === 0) {
    return false;
  }
  const [r] = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM fact_batches WHERE id = ANY(${batchIds}::bigint[])`;
  return (r?.n ?? 0) > 0;
}
