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

type FactKeys = Pick<UserFootprint, 'installIds' | 'clickIds' | 'adIds'> & {
  /** Browsers (Web SDK visitor_id) the user was identified on. */
  visitorIds?: string[];
};

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
 * one of the installs or (a web event) to one of the user's browsers, or is one of the user's
 * clicks or a click carrying one of its ad ids.
 */
function userFacts(sql: Sql, projectId: string, userId: string, f: FactKeys) {
  return (alias: string) => sql`
    ${sql(alias)}.project_id = ${projectId} AND (
      ${sql(alias)}.row->>'user_id' = ${userId}
      OR (coalesce(${sql(alias)}.row->>'user_id', '') = ''
        AND ${sql(alias)}.row->>'install_instance_id' = ANY(${f.installIds}::text[]))
      OR (${sql(alias)}.fact_table = 'web_events' AND coalesce(${sql(alias)}.row->>'user_id', '') = ''
        AND ${sql(alias)}.row->>'visitor_id' = ANY(${f.visitorIds ?? []}::text[]))
      OR (${sql(alias)}.fact_table = 'clicks' AND (${sql(alias)}.fact_id = ANY(${f.clickIds}::text[])
        OR ${sql(alias)}.row->>'ad_id' = ANY(${f.adIds}::text[]))))`;
}

/**
 * The browsers the user was identified on by web events still waiting in the outbox or
 * dead-lettered (ClickHouse does not hold them yet, so clickhouse/user-data.ts cannot find them).
 */
export async function findWaitingVisitorIds(sql: Sql, projectId: string, userId: string): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    SELECT row->>'visitor_id' AS id FROM fact_outbox
    WHERE project_id = ${projectId} AND fact_table = 'web_events' AND row->>'user_id' = ${userId}
      AND coalesce(row->>'visitor_id', '') <> ''
    UNION
    SELECT row->>'visitor_id' AS id FROM fact_dead_letters
    WHERE project_id = ${projectId} AND fact_table = 'web_events' AND row->>'user_id' = ${userId}
      AND coalesce(row->>'visitor_id', '') <> ''`;
  return rows.map((r) => r.id);
}

/** How many outbox and dead-letter rows are the user's (a user known only from them is still found). */
export async function countUserFacts(sql: Sql, projectId: string, userId: string, f: FactKeys): Promise<number> {
  const mine = userFacts(sql, projectId, userId, f);
  const [r] = await sql<{ n: number }[]>`
    SELECT (SELECT count(*) FROM fact_outbox o WHERE ${mine('o')})::int
      + (SELECT count(*) FROM fact_dead_letters d WHERE ${mine('d')})::int AS n`;
  return r?.n ?? 0;
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

/** What the ClickHouse step needs once Postgres forgot it. */
export type UserRowsGone = {
  deleted: UserRowsDeleted;
  /** fact_outbox.seq of the deleted outbox rows: a writer may have read them into a batch. */
  factSeqs: string[];
  /** deliveries.id of the deleted deliveries (their attempts are in ClickHouse delivery_attempts). */
  deliveryIds: string[];
};

/**
 * Deletes the user's rows (call inside a transaction): the user, its payments, deliveries and
 * installs, and its facts (web events of its browsers included) still waiting in the outbox or
 * dead-lettered. seen_event_ids and seen_web_event_ids stay: they hold opaque client ids only, and
 * keeping them stops a re-sent event from bringing the user's data back. The order is the point:
 * each statement reads afresh (READ COMMITTED), and the rows other writers lock before they write
 * outbox rows come first, so the deletion waits for such a writer under way and then sees, and
 * deletes, what it wrote. The user first: a capture in flight holds it (FOR KEY SHARE,
 * store/postgres/payments.ts and events.ts) until it commits, and a later one finds it gone. Then a
 * payment's removal (RevenueCat refund) holds the payment, a decision or an uninstall the install.
 * The outbox and the dead letters last.
 */
export async function deleteUserRows(sql: Sql, projectId: string, userId: string, f: FactKeys): Promise<UserRowsGone> {
  const users = await sql`DELETE FROM app_users WHERE project_id = ${projectId} AND user_id = ${userId}`;
  // RevenueCat refunds of the user's payments, and those naming the user (pending ones too).
  await sql`DELETE FROM revenuecat_refunds WHERE project_id = ${projectId} AND (user_id = ${userId}
    OR payment_id IN (SELECT payment_id FROM payments WHERE project_id = ${projectId} AND user_id = ${userId}))`;
  const payments = await sql`DELETE FROM payments WHERE project_id = ${projectId} AND user_id = ${userId}`;
  // Queued or logged outgoing deliveries (webhook bodies hold the user's own fields).
  const deliveries = await sql<{ id: string }[]>`DELETE FROM deliveries WHERE project_id = ${projectId}
    AND (user_id = ${userId} OR install_instance_id = ANY(${f.installIds}::text[])) RETURNING id::text`;
  const installs = await sql`
    DELETE FROM installs WHERE project_id = ${projectId} AND install_instance_id = ANY(${f.installIds}::text[])`;
  // An install kept because another user registered through it goes back to that user (the latest
  // of them): tied to no one, its app's events, which name no user, would count for nobody.
  await sql`UPDATE installs i SET user_id = (
      SELECT u.user_id FROM app_users u WHERE u.project_id = ${projectId}
        AND u.install_instance_id = i.install_instance_id AND u.user_id <> ${userId}
      ORDER BY u.created_at DESC LIMIT 1)
    WHERE project_id = ${projectId} AND user_id = ${userId}`;
  const mine = userFacts(sql, projectId, userId, f);
  const outbox = await sql<{ seq: string }[]>`DELETE FROM fact_outbox o WHERE ${mine('o')} RETURNING seq::text`;
  const dead = await sql`DELETE FROM fact_dead_letters d WHERE ${mine('d')}`;
  return {
    deleted: {
      appUsers: users.count,
      installs: installs.count,
      payments: payments.count,
      factOutbox: outbox.count,
      factDeadLetters: dead.count,
    },
    factSeqs: outbox.map((r) => r.seq),
    deliveryIds: deliveries.map((r) => r.id),
  };
}

/** What an unfinished deletion of the user had found, if any. */
export type UnfinishedDeletion = {
  installIds: string[];
  adIds: string[];
  factSeqs: string[];
  deliveryIds: string[];
  /** Browsers the user was identified on: an identify only in the outbox is gone after step 2. */
  visitorIds: string[];
};

export async function findUnfinishedDeletion(
  sql: Sql,
  projectId: string,
  userId: string,
): Promise<UnfinishedDeletion | undefined> {
  const [row] = await sql<
    { install_ids: string[]; ad_ids: string[]; fact_seqs: string[]; delivery_ids: string[]; visitor_ids: string[] }[]
  >`
    SELECT install_ids, ad_ids, fact_seqs::text[] AS fact_seqs, delivery_ids, visitor_ids
    FROM user_deletions WHERE project_id = ${projectId} AND user_id = ${userId}`;
  return (
    row && {
      installIds: row.install_ids,
      adIds: row.ad_ids,
      factSeqs: row.fact_seqs,
      deliveryIds: row.delivery_ids,
      visitorIds: row.visitor_ids,
    }
  );
}

/**
 * Keeps what the deletion found and deleted until ClickHouse is done (call in the transaction that
 * deletes the user's rows): a re-run after a failure still knows the ad ids Postgres no longer has,
 * the outbox rows a writer may still be inserting, the deliveries whose attempts are logged, and
 * the browsers found by an identify that was only in the outbox.
 */
export async function markDeletionUnfinished(
  sql: Sql,
  projectId: string,
  userId: string,
  d: UnfinishedDeletion,
): Promise<void> {
  await sql`
    INSERT INTO user_deletions (project_id, user_id, install_ids, ad_ids, fact_seqs, delivery_ids, visitor_ids)
    VALUES (${projectId}, ${userId}, ${d.installIds}::text[], ${d.adIds}::text[], ${d.factSeqs}::bigint[],
      ${d.deliveryIds}::text[], ${d.visitorIds}::text[])
    ON CONFLICT (project_id, user_id) DO UPDATE SET
      install_ids = ARRAY(SELECT DISTINCT unnest(user_deletions.install_ids || EXCLUDED.install_ids)),
      ad_ids = ARRAY(SELECT DISTINCT unnest(user_deletions.ad_ids || EXCLUDED.ad_ids)),
      fact_seqs = ARRAY(SELECT DISTINCT unnest(user_deletions.fact_seqs || EXCLUDED.fact_seqs)),
      delivery_ids = ARRAY(SELECT DISTINCT unnest(user_deletions.delivery_ids || EXCLUDED.delivery_ids)),
      visitor_ids = ARRAY(SELECT DISTINCT unnest(user_deletions.visitor_ids || EXCLUDED.visitor_ids))`;
}

export async function markDeletionFinished(sql: Sql, projectId: string, userId: string): Promise<void> {
  await sql`DELETE FROM user_deletions WHERE project_id = ${projectId} AND user_id = ${userId}`;
}

/**
 * How many of the outbox rows `seqs` (deleted by now) a fact writer still holds in a batch: it may
 * have read them before they were deleted, and its ClickHouse insert may still land. A claim lasts
 * until its batch is deleted (after the insert) or given back, so this finds every such batch,
 * however late it was claimed: a claim that commits after this can no longer read the rows.
 */
export async function countClaimedRows(sql: Sql, seqs: string[]): Promise<number> {
  if (seqs.length === 0) {
    return 0;
  }
  const [r] = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM fact_claims WHERE seq = ANY(${seqs}::bigint[])`;
  return r?.n ?? 0;
}
