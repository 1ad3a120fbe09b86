// SQL of the fact dead letters (see sql/migrations/0004_fact_outbox.sql): facts ClickHouse refused,
// kept with the reason until an operator fixes and replays them. Refused rows are written by
// deadLetter() in fact-outbox.ts, in the same transaction that removes their batch.
import type { Sql } from './pool.ts';

export type DeadLetter = {
  id: string;
  table: string;
  factId: string;
  projectId: string;
  row: Record<string, unknown>;
  reason: string;
  failedAt: Date;
  replayedAt: Date | null;
};
export type DeadLetterCount = { table: string; pending: number; replayed: number };
export type DeadLetterReason = { table: string; reason: string; count: number };

type Row = {
  id: string;
  fact_table: string;
  fact_id: string;
  project_id: string;
  row: Record<string, unknown>;
  reason: string;
  failed_at: Date;
  replayed_at: Date | null;
};
const toDeadLetter = (r: Row): DeadLetter => ({
  id: r.id,
  table: r.fact_table,
  factId: r.fact_id,
  projectId: r.project_id,
  row: r.row,
  reason: r.reason,
  failedAt: r.failed_at,
  replayedAt: r.replayed_at,
});

export type DeadLetterFilter = { table?: string; id?: string };

export async function countDeadLetters(sql: Sql, f: DeadLetterFilter = {}): Promise<DeadLetterCount[]> {
  const rows = await sql<{ fact_table: string; pending: number; replayed: number }[]>`
    SELECT fact_table, (count(*) FILTER (WHERE replayed_at IS NULL))::int AS pending,
      (count(*) FILTER (WHERE replayed_at IS NOT NULL))::int AS replayed
    FROM fact_dead_letters WHERE ${f.table === undefined ? sql`true` : sql`fact_table = ${f.table}`}
    GROUP BY fact_table ORDER BY fact_table`;
  return rows.map((r) => ({ table: r.fact_table, pending: r.pending, replayed: r.replayed }));
}

/** Pending dead letters grouped by table and reason (its first line), most frequent first. */
export async function summarizeReasons(sql: Sql, f: DeadLetterFilter, limit: number): Promise<DeadLetterReason[]> {
  const rows = await sql<{ fact_table: string; reason: string; n: number }[]>`
    SELECT fact_table, split_part(reason, E'\n', 1) AS reason, count(*)::int AS n
    FROM fact_dead_letters
    WHERE replayed_at IS NULL AND ${f.table === undefined ? sql`true` : sql`fact_table = ${f.table}`}
    GROUP BY 1, 2 ORDER BY n DESC, 1, 2 LIMIT ${limit}`;
  return rows.map((r) => ({ table: r.fact_table, reason: r.reason, count: r.n }));
}

/** Pending dead letters, oldest first. */
export async function findPendingDeadLetters(sql: Sql, f: DeadLetterFilter, limit: number): Promise<DeadLetter[]> {
  const rows = await sql<Row[]>`
    SELECT id::text, fact_table, fact_id, project_id, row, reason, failed_at, replayed_at
    FROM fact_dead_letters
    WHERE replayed_at IS NULL
      AND ${f.table === undefined ? sql`true` : sql`fact_table = ${f.table}`}
      AND ${f.id === undefined ? sql`true` : sql`id = ${f.id}`}
    ORDER BY id LIMIT ${limit}`;
  return rows.map(toDeadLetter);
}

/**
 * Locks up to `limit` pending dead letters with ids in (afterId, maxId] for a replay (in a
 * transaction), oldest first. maxId keeps rows dead-lettered again during the replay out of it.
 */
export async function lockDeadLettersForReplay(
  sql: Sql,
  f: DeadLetterFilter & { tables: readonly string[]; afterId: string; maxId: string },
  limit: number,
): Promise<DeadLetter[]> {
  const rows = await sql<Row[]>`
    SELECT id::text, fact_table, fact_id, project_id, row, reason, failed_at, replayed_at
    FROM fact_dead_letters
    WHERE replayed_at IS NULL AND id > ${f.afterId} AND id <= ${f.maxId}
      AND fact_table = ANY(${f.tables as string[]})
      AND ${f.table === undefined ? sql`true` : sql`fact_table = ${f.table}`}
      AND ${f.id === undefined ? sql`true` : sql`id = ${f.id}`}
    ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED`;
  return rows.map(toDeadLetter);
}

export async function maxDeadLetterId(sql: Sql): Promise<string> {
  const [r] = await sql<{ id: string }[]>`SELECT coalesce(max(id), 0)::text AS id FROM fact_dead_letters`;
  return r?.id ?? '0';
}

export async function markReplayed(sql: Sql, ids: string[]): Promise<void> {
  await sql`UPDATE fact_dead_letters SET replayed_at = now() WHERE id = ANY(${ids}::bigint[])`;
}

/**
 * Marks replayed the pending dead letters (ids up to maxId) of the same facts (table, project,
 * fact id) as `sent`, other than those: one fact dead-lettered twice is replayed once. Answers the
 * tables of the rows it marked. (A dead letter past maxId was refused during this replay.)
 */
export async function markCopiesReplayed(
  sql: Sql,
  sent: Pick<DeadLetter, 'id' | 'table' | 'projectId' | 'factId'>[],
  maxId: string,
): Promise<string[]> {
  if (sent.length === 0) {
    return [];
  }
  const rows = await sql<{ fact_table: string }[]>`
    UPDATE fact_dead_letters d SET replayed_at = now()
    FROM unnest(${sent.map((r) => r.table)}::text[], ${sent.map((r) => r.projectId)}::uuid[],
      ${sent.map((r) => r.factId)}::text[]) AS k (t, p, f)
    WHERE d.replayed_at IS NULL AND d.id <= ${maxId} AND NOT d.id = ANY(${sent.map((r) => r.id)}::bigint[])
      AND d.fact_table = k.t AND d.project_id = k.p AND d.fact_id = k.f
    RETURNING d.fact_table`;
  return rows.map((r) => r.fact_table);
}
