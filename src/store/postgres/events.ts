// capture-event's idempotency keys (sql/migrations/0008_users_events_payments.sql: seen_event_ids).
// The events themselves are facts: they go to the outbox, never to a Postgres table.
import type { Sql } from './pool.ts';

/** Records an event_id; false when the project has already seen it (the event is a repeat). */
export async function insertSeenEventId(sql: Sql, projectId: string, eventId: string): Promise<boolean> {
  const rows = await sql`INSERT INTO seen_event_ids (project_id, event_id) VALUES (${projectId}, ${eventId})
    ON CONFLICT (project_id, event_id) DO NOTHING RETURNING 1`;
  return rows.length === 1;
}
