// capture-event's idempotency keys (sql/migrations/0008_users_events_payments.sql: seen_event_ids),
// the Web SDK's (0040: seen_web_event_ids), and capture-event's outbox rows. The events themselves
// are facts: they go to the outbox, never to a Postgres table.
import type { Sql } from './pool.ts';

/** The key insertSeenEventIds answers with. */
export const seenEventKey = (projectId: string, eventId: string): string => `${projectId}\n${eventId}`;

/**
 * Records event_ids in one statement; answers the keys (seenEventKey) of those the project had not
 * seen, i.e. the events to store. An id given twice is recorded once and answered once.
 */
export function insertSeenEventIds(sql: Sql, ids: { projectId: string; eventId: string }[]): Promise<Set<string>> {
  return insertClaims(sql, 'seen_event_ids', ids);
}

/**
 * insertSeenEventIds for the Web SDK's event_ids (migration 0040: seen_web_event_ids), a namespace
 * apart: an app event and a web event never take each other's claim, whatever their ids.
 */
export function insertSeenWebEventIds(sql: Sql, ids: { projectId: string; eventId: string }[]): Promise<Set<string>> {
  return insertClaims(sql, 'seen_web_event_ids', ids);
}

async function insertClaims(
  sql: Sql,
  table: 'seen_event_ids' | 'seen_web_event_ids',
  ids: { projectId: string; eventId: string }[],
): Promise<Set<string>> {
  if (ids.length === 0) {
    return new Set();
  }
  const rows = await sql<{ project_id: string; event_id: string }[]>`
    INSERT INTO ${sql(table)} (project_id, event_id)
    SELECT p::uuid, e FROM unnest(${ids.map((i) => i.projectId)}::text[], ${ids.map((i) => i.eventId)}::text[]) AS x (p, e)
    ON CONFLICT (project_id, event_id) DO NOTHING RETURNING project_id::text, event_id`;
  return new Set(rows.map((r) => seenEventKey(r.project_id, r.event_id)));
}

export type EventFact = {
  factId: string;
  projectId: string;
  /** The registered user the event is stored for: the row is written only while app_users holds it. */
  userId: string;
  row: Record<string, unknown>;
  /** The install whose attribution the fact writer adds to the row. */
  enrichInstall: string;
};

/**
 * Writes events' outbox rows (as insertOutboxRows does, resting never) for users still registered,
 * in one statement; answers the positions of the rows not written because their user is not.
 * The user was resolved before the transaction, and a GDPR deletion (domain/users/delete-user.ts)
 * may have committed since: each row's user is read again with FOR KEY SHARE, which waits for a
 * deletion under way (it deletes app_users first) and then finds the user gone; and a deletion
 * starting after this waits for this transaction, then deletes what it wrote. A foreign key would
 * take the same lock, but a violation aborts the transaction (and its whole commit group).
 */
export async function insertEventFacts(sql: Sql, rows: EventFact[]): Promise<number[]> {
  if (rows.length === 0) {
    return [];
  }
  const payload = JSON.stringify(rows.map((r) => r.row));
  const missing = await sql<{ i: number }[]>`
    WITH x AS MATERIALIZED (
      SELECT x0.*, EXISTS (SELECT 1 FROM app_users u WHERE u.project_id = x0.p AND u.user_id = x0.u FOR KEY SHARE) AS ok
      FROM ROWS FROM (
        unnest(${rows.map((r) => r.factId)}::text[], ${rows.map((r) => r.projectId)}::uuid[],
          ${rows.map((r) => r.userId)}::text[], ${rows.map((r) => r.enrichInstall)}::text[]),
        json_array_elements(${payload}::text::json)) WITH ORDINALITY AS x0 (f, p, u, e, r, i)),
    written AS (
      INSERT INTO fact_outbox (fact_table, fact_id, project_id, row, enrich_install, bytes)
      SELECT 'events', f, p, r, e, octet_length(r::text) FROM x WHERE ok)
    SELECT (i - 1)::int AS i FROM x WHERE NOT ok`;
  return missing.map((m) => m.i);
}
