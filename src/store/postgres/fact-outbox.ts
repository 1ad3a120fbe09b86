// SQL of the fact outbox (see sql/migrations/0004_fact_outbox.sql).
import type { Sql } from './pool.ts';

export type OutboxRow = {
  table: string;
  factId: string;
  projectId: string;
  row: Record<string, unknown>;
  /** The install whose attribution the writer adds to the row (see domain/facts/enrich-facts.ts). */
  enrichInstall?: string;
};
export type ClaimedRow = {
  seq: string;
  factId: string;
  projectId: string;
  row: Record<string, unknown>;
  enrichInstall: string | null;
  createdAt: Date;
};

export async function insertOutboxRows(sql: Sql, rows: OutboxRow[]): Promise<void> {
  if (rows.length === 0) {
    return;
  }
  // One statement text whatever the row count, so Postgres and postgres.js prepare it once (a VALUES
  // list of N rows was a new statement for every group size). The rows travel as one JSON array:
  // as five text[] parameters every quote of every row had to be escaped for the array literal,
  // the largest cost of a click's redirect (bench `redirects`, --cpu-prof).
  const payload = JSON.stringify(
    rows.map((r) => ({ t: r.table, f: r.factId, p: r.projectId, r: r.row, e: r.enrichInstall ?? null })),
  );
  await sql`INSERT INTO fact_outbox (fact_table, fact_id, project_id, row, enrich_install)
    SELECT x->>'t', x->>'f', (x->>'p')::uuid, x->'r', x->>'e' FROM jsonb_array_elements(${payload}::text::jsonb) AS x`;
}

type Claimed = {
  seq: string;
  fact_id: string;
  project_id: string;
  row: Record<string, unknown>;
  enrich_install: string | null;
  created_at: Date;
};
/** Oldest first: seq order, compared as decimal text (no leading zeros) without BigInt. */
const bySeq = (a: { seq: string }, b: { seq: string }) =>
  a.seq.length - b.seq.length || (a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0);
const toClaimed = (r: Claimed): ClaimedRow => ({
  seq: r.seq,
  factId: r.fact_id,
  projectId: r.project_id,
  row: r.row,
  enrichInstall: r.enrich_install,
  createdAt: r.created_at,
});

/** Claims up to `limit` pending rows of a table as one new batch, oldest first (resting rows skipped). */
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
        AND (not_before IS NULL OR not_before <= now())
      ORDER BY seq LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING seq::text, fact_id, project_id, row, enrich_install, created_at`;
  if (rows.length === 0) {
    return undefined;
  }
  return { batchId: id, rows: rows.sort(bySeq).map(toClaimed) };
}

/**
 * A batch claimed earlier whose writer did not finish it (crash, outage, or a replay), for a retry.
 * The claim is re-taken in one statement, so two writers never retry the same batch at once.
 */
export async function findStaleBatch(
  sql: Sql,
  table: string,
  olderThanMs: number,
): Promise<{ batchId: string; rows: ClaimedRow[] } | undefined> {
  const age = olderThanMs / 1000;
  const rows = await sql<(Claimed & { batch_id: string })[]>`
    UPDATE fact_outbox SET claimed_at = now()
    WHERE batch_id = (
        SELECT batch_id FROM fact_outbox
        WHERE fact_table = ${table} AND batch_id IS NOT NULL AND claimed_at < now() - make_interval(secs => ${age})
        ORDER BY batch_id LIMIT 1)
      AND claimed_at < now() - make_interval(secs => ${age})
    RETURNING batch_id::text, seq::text, fact_id, project_id, row, enrich_install, created_at`;
  const first = rows[0];
  if (!first) {
    return undefined;
  }
  return { batchId: first.batch_id, rows: rows.sort(bySeq).map(toClaimed) };
}

/** Makes a batch whose insert failed due for a retry on the next pass (it keeps its id and token). */
export async function markBatchForRetry(sql: Sql, batchId: string): Promise<void> {
  await sql`UPDATE fact_outbox SET claimed_at = 'epoch' WHERE batch_id = ${batchId}`;
}

/**
 * Writes rows back as an already-claimed batch that is due at once (replayed dead letters): the
 * writer then treats them like a retry and skips fact ids ClickHouse already holds.
 */
export async function insertRetryBatch(sql: Sql, table: string, rows: OutboxRow[]): Promise<string> {
  const [{ id } = { id: '' }] = await sql<{ id: string }[]>`SELECT nextval('fact_batch_seq')::text AS id`;
  const values = rows.map((r) => ({
    fact_table: table,
    fact_id: r.factId,
    project_id: r.projectId,
    row: sql.json(r.row as never),
    batch_id: id,
    claimed_at: new Date(0),
  }));
  await sql`INSERT INTO fact_outbox ${sql(values, 'fact_table', 'fact_id', 'project_id', 'row', 'batch_id', 'claimed_at')}`;
  return id;
}

/**
 * Gives rows back to the queue (their install's attribution is not decided yet). They rest a
 * quarter of their age, between 1 and 30 s, before a claim takes them again (wakeRestingRows ends
 * that early), so waiting rows are not claimed and given back on every tick.
 */
export async function releaseRows(sql: Sql, seqs: string[]): Promise<void> {
  if (seqs.length > 0) {
    await sql`UPDATE fact_outbox SET batch_id = NULL, claimed_at = NULL,
      not_before = now() + LEAST(interval '30 seconds', GREATEST(interval '1 second', (now() - created_at) / 4))
      WHERE seq = ANY(${seqs}::bigint[])`;
  }
}

/**
 * The install's attribution is decided: its resting rows may be claimed at once. Rows a writer is
 * claiming or giving back right now are skipped rather than waited for (that wait held up the
 * decision's whole commit group); such a row goes out when its rest ends (at most 30 s).
 */
export async function wakeRestingRows(sql: Sql, projectId: string, installInstanceId: string): Promise<void> {
  await sql`UPDATE fact_outbox SET not_before = NULL WHERE seq IN (
    SELECT seq FROM fact_outbox
    WHERE project_id = ${projectId} AND enrich_install = ${installInstanceId} AND not_before IS NOT NULL
    FOR UPDATE SKIP LOCKED)`;
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

/**
 * Whether the outbox holds more than `cap` rows, cheaply: max(seq) - min(seq) + 1 (two index
 * lookups) bounds the count from above, and only when that bound passes the cap are rows counted,
 * never more than cap + 1 of them.
 */
export async function outboxExceeds(sql: Sql, cap: number): Promise<boolean> {
  const [span] = await sql<{ n: string | null }[]>`SELECT (max(seq) - min(seq) + 1)::text AS n FROM fact_outbox`;
  if (!span?.n || Number(span.n) <= cap) {
    return false;
  }
  const [c] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM (SELECT 1 FROM fact_outbox LIMIT ${cap + 1}) s`;
  return (c?.n ?? 0) > cap;
}

export type OutboxTableStatus = { table: string; rows: number; claimed: number; oldestCreatedAt: Date };

/** Rows waiting per table (exact; for operators), how many are claimed, and the oldest row's age. */
export async function outboxStatus(sql: Sql): Promise<OutboxTableStatus[]> {
  const rows = await sql<{ fact_table: string; n: number; claimed: number; oldest: Date }[]>`
    SELECT fact_table, count(*)::int AS n, (count(*) FILTER (WHERE batch_id IS NOT NULL))::int AS claimed,
      min(created_at) AS oldest
    FROM fact_outbox GROUP BY fact_table ORDER BY fact_table`;
  return rows.map((r) => ({ table: r.fact_table, rows: r.n, claimed: r.claimed, oldestCreatedAt: r.oldest }));
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
