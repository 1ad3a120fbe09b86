// capture-event's idempotency keys (sql/migrations/0008_users_events_payments.sql: seen_event_ids).
// The events themselves are facts: they go to the outbox, never to a Postgres table.
import type { Sql } from './pool.ts';

/** The key insertSeenEventIds answers with. */
export const seenEventKey = (projectId: string, eventId: string): string => `${projectId}\n${eventId}`;

/**
 * Records event_ids in one statement; answers the keys (seenEventKey) of those the project had not
 * seen, i.e. the events to store. An id given twice is recorded once and answered once.
 */
export async function insertSeenEventIds(
  sql: Sql,
  ids: { projectId: string; eventId: string }[],
): Promise<Set<string>> {
  if (ids.length === 0) {
    return new Set();
  }
  const rows = await sql<{ project_id: string; event_id: string }[]>`
    INSERT INTO seen_event_ids (project_id, event_id)
    SELECT p::uuid, e FROM unnest(${ids.map((i) => i.projectId)}::text[], ${ids.map((i) => i.eventId)}::text[]) AS x (p, e)
    ON CONFLICT (project_id, event_id) DO NOTHING RETURNING project_id::text, event_id`;
  return new Set(rows.map((r) => seenEventKey(r.project_id, r.event_id)));
}
