// SQL of the fact outbox (see sql/migrations/0004_fact_outbox.sql).
import type { Sql } from './pool.ts';

export type OutboxRow = { table: string; factId: string; projectId: string; row: Record<string, unknown> };
export type ClaimedRow = { seq: string; factId: string; projectId: string; row: Record<string, unknown> };

export async function insertOutboxRows(sql: Sql, rows: OutboxRow[]): Promise<void> {
  if (rows.length === 0) {
    return;
  }
  const values = rows.map((r) => ({
    fact_table: r.table,
    fact_id: r.factId,
    project_id: r.projectId,
    row: sql.json(r.row as never),
  }));
  await sql`INSERT INTO fact_outbox ${sql(values, 'fact_table', 'fact_id', 'project_id', 'row')}`;
}

type Claimed = { seq: string; fact_id: string; project_id: string; row: Record<string, unknown> };
const toClaimed = (r: Claimed): ClaimedRow => ({ seq: r.seq, factId: r.fact_id, projectId: r.project_id, row: r.row });

/** Claims up to `limit` pending rows of a table as one new batch, oldest first. */
export async function claimBatch(
  sql: Sql,
  table: string,
  limit: number,
): Promise<{ batchId: string; rows: ClaimedRow[] } | undefined> {
  const [{ id } = { id: '' }] = await sql<{ id: string }[]>`SELECT nextval('fact_batch_seq')::text AS id`;
  const rows = await sql<Claimed[]>`
    UPDATE fact_outbox SET batch_id = ${id}, claimed_at = now()
    WHERE seq IN (
      SELECT seq FROM fact_outbox WHERE fact_table = ${table} AND batch_id IS NULL
      ORDER BY seq LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING seq::text, fact_id, project_id, row`;
  if (rows.length === 0) {
    return undefined;
  }
  rows.sort((a, b) => (BigInt(a.seq) < BigInt(b.seq) ? -1 : 1));
  return { batchId: id, rows: rows.map(toClaimed) };
}

/** A batch claimed earlier whose writer did not finish it (crash or outage), for a retry. */
export async function findStaleBatch(
  sql: Sql,
  table: string,
  olderThanMs: number,
): Promise<{ batchId: string; rows: ClaimedRow[] } | undefined> {
  const [b] = await sql<{ batch_id: string }[]>`
    SELECT batch_id::text FROM fact_outbox
    WHERE fact_table = ${table} AND batch_id IS NOT NULL
      AND claimed_at < now() - make_interval(secs => ${olderThanMs / 1000})
    ORDER BY batch_id LIMIT 1`;
  if (!b) {
    return undefined;
  }
  const rows = await sql<Claimed[]>`
    UPDATE fact_outbox SET claimed_at = now() WHERE batch_id = ${b.batch_id}
    RETURNING seq::text, fact_id, project_id, row`;
  rows.sort((a, c) => (BigInt(a.seq) < BigInt(c.seq) ? -1 : 1));
  return { batchId: b.batch_id, rows: rows.map(toClaimed) };
}

export async function deleteBatch(sql: Sql, batchId: string): Promise<void> {
  await sql`DELETE FROM fact_outbox WHERE batch_id = ${batchId}`;
}

export async function deadLetter(
  sql: Sql,
  table: string,
  batchId: string,
  failed: { row: ClaimedRow; reason: string }[],
): Promise<void> {
  await sql.begin(async (tx) => {
    for (const f of failed) {
      await tx`INSERT INTO fact_dead_letters (fact_table, fact_id, project_id, row, reason)
        VALUES (${table}, ${f.row.factId}, ${f.row.projectId}, ${tx.json(f.row.row as never)}, ${f.reason.slice(0, 2000)})`;
    }
    await tx`DELETE FROM fact_outbox WHERE batch_id = ${batchId}`;
  });
}

/** Tables with rows waiting, and how many. */
export async function pendingByTable(sql: Sql): Promise<Map<string, number>> {
  const rows = await sql<{ fact_table: string; n: number }[]>`
    SELECT fact_table, count(*)::int AS n FROM fact_outbox GROUP BY fact_table`;
  return new Map(rows.map((r) => [r.fact_table, r.n]));
}

/** A fact still waiting in the outbox, by id (read-your-writes before it reaches ClickHouse). */
export async function findOutboxRow(
  sql: Sql,
  table: string,
  projectId: string,
  factId: string,
): Promise<Record<string, unknown> | undefined> {
  const [r] = await sql<{ row: Record<string, unknown> }[]>`
    SELECT row FROM fact_outbox WHERE fact_table = ${table} AND project_id = ${projectId} AND fact_id = ${factId} LIMIT 1`;
  return r?.row;
}
