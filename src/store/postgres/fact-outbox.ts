// SQL of the fact outbox and its writers' claims (sql/migrations/0004_fact_outbox.sql, 0017_fact_claims.sql).
import { cutChars, storable, storableJson } from '../../lib/storable.ts';
import type { Sql, Tx } from './pool.ts';

export type OutboxRow = {
  table: string;
  factId: string;
  projectId: string;
  row: Record<string, unknown>;
  /** The install whose attribution the writer adds to the row (see domain/facts/enrich-facts.ts). */
  enrichInstall?: string;
  /**
   * A fact of the same table and project whose writer-added columns this row repeats (a payment
   * removal names its capture): the writer holds the row while that fact is in the outbox, then
   * copies them (domain/facts/removal-columns.ts).
   */
  enrichFrom?: string;
  /**
   * The install is being attributed: the row rests (not claimed) until the decision wakes it
   * (wakeRestingRows), or for LONGEST_REST at most, as a row releaseRows gives back. Without it a
   * writer claims, reads and gives back the row, often more than once, while the decision is made.
   */
  resting?: boolean;
};
/** The longest a resting row waits before a claim may take it again, woken or not. */
const LONGEST_REST = '30 seconds';

export type ClaimedRow = {
  seq: string;
  factId: string;
  projectId: string;
  /** The row as JSON text, as the outbox holds it (the writer sends it on without parsing it). */
  json: string;
  /** Bytes of `json` as written (0 for rows written before migration 0020). */
  bytes: number;
  enrichInstall: string | null;
  enrichFrom: string | null;
  /** The row's ts and project_tz, read for rows to enrich only. */
  ts: string | null;
  tz: string | null;
  createdAt: Date;
};

export async function insertOutboxRows(sql: Sql, rows: OutboxRow[]): Promise<void> {
  if (rows.length === 0) {
    return;
  }
  // One statement text whatever the row count, so Postgres and postgres.js prepare it once (a VALUES
  // list of N rows was a new statement for every group size). The rows travel as one JSON array,
  // stored element by element as the json text they are (migration 0018); as a text[] parameter
  // every quote of every row had to be escaped for the array literal, the largest cost of a
  // click's redirect (bench `redirects`, --cpu-prof). The other columns are plain text arrays.
  const n = rows.length;
  const tables = new Array<string>(n);
  const factIds = new Array<string>(n);
  const projects = new Array<string>(n);
  const enrich = new Array<string | null>(n);
  const resting = new Array<string | null>(n);
  const from = new Array<string | null>(n);
  for (let i = 0; i < n; i++) {
    const r = rows[i] as OutboxRow;
    tables[i] = r.table;
    factIds[i] = r.factId;
    projects[i] = r.projectId;
    enrich[i] = r.enrichInstall ?? null;
    resting[i] = r.resting ? 'y' : null;
    from[i] = r.enrichFrom ?? null;
  }
  const payload = JSON.stringify(rows.map((r) => r.row));
  await sql`INSERT INTO fact_outbox (fact_table, fact_id, project_id, row, enrich_install, enrich_from, not_before, bytes)
    SELECT t, f, p, r, e, ef, CASE WHEN w IS NOT NULL THEN now() + ${LONGEST_REST}::interval END, octet_length(r::text)
    FROM ROWS FROM (
      unnest(${tables}::text[], ${factIds}::text[], ${projects}::uuid[], ${enrich}::text[], ${resting}::text[],
        ${from}::text[]),
      json_array_elements(${payload}::text::json)) AS x (t, f, p, e, w, ef, r)`;
}

/** A batch's rows (exported for the plan test in test/facts/claims.test.ts). */
export const READ_BATCH_SQL = `
  SELECT o.seq::text, o.fact_id, o.project_id, o.row::text AS json, coalesce(o.bytes, 0) AS bytes,
    o.enrich_install, o.enrich_from, o.created_at,
    CASE WHEN o.enrich_install IS NOT NULL THEN o.row->>'ts' END AS ts,
    CASE WHEN o.enrich_install IS NOT NULL THEN o.row->>'project_tz' END AS tz
  FROM fact_claims c JOIN fact_outbox o ON o.seq = c.seq WHERE c.batch_id = $1`;

type Claimed = {
  seq: string;
  fact_id: string;
  project_id: string;
  json: string;
  bytes: number;
  enrich_install: string | null;
  enrich_from: string | null;
  ts: string | null;
  tz: string | null;
  created_at: Date;
};
/** Oldest first: seq order, compared as decimal text (no leading zeros) without BigInt. */
const bySeq = (a: { seq: string }, b: { seq: string }) =>
  a.seq.length - b.seq.length || (a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0);
const toClaimed = (r: Claimed): ClaimedRow => ({
  seq: r.seq,
  factId: r.fact_id,
  projectId: r.project_id,
  json: r.json,
  bytes: r.bytes,
  enrichInstall: r.enrich_install,
  enrichFrom: r.enrich_from,
  ts: r.ts,
  tz: r.tz,
  createdAt: r.created_at,
});

/**
 * A batch with the rows it holds (those still in the outbox), oldest first; undefined for no batch
 * id (nothing was claimed). A batch none of whose rows are left (deleted meanwhile: another
 * writer's, or a user's data) is deleted instead.
 */
export async function readBatch(
  sql: Sql,
  batchId: string | undefined,
): Promise<{ batchId: string; rows: ClaimedRow[] } | undefined> {
  if (batchId === undefined) {
    return undefined;
  }
  const rows = await sql.unsafe<Claimed[]>(READ_BATCH_SQL, [batchId]);
  if (rows.length === 0) {
    await deleteBatch(sql, batchId);
    return undefined;
  }
  return { batchId, rows: rows.sort(bySeq).map(toClaimed) };
}

/**
 * The claim's plan is pinned: it runs with sorts and sequential scans disabled for its own
 * transaction, so Postgres reads the table's pending rows through fact_outbox_pending (fact_table,
 * created_at) in order, and probes fact_claims by its key. (Rows of one insert share created_at;
 * their order among themselves does not matter. seq left that index in migration 0019, so that
 * reading and deleting a batch by seq always goes through the primary key.) Left to itself the planner chose
 * by statistics, and got it badly wrong twice (bench `fact-writer`): a prepared claim ran on a
 * generic plan that walked the whole outbox by seq and filtered by table (150–300 ms for a drained
 * table; the writer, busy claiming drained tables once a second each, never came back to the one
 * with rows), and with the first index column (the table) uncorrelated with the heap it preferred
 * a full scan and a sort. Ordering by created_at, which only that index provides, keeps the
 * primary key out of it. The NOT EXISTS carries OFFSET 0 so Postgres keeps it a per-row probe of
 * fact_claims' key: pulled up into an anti-join, with statistics from a moment few claims were held,
 * it compared every pending row with every claim other batches held (a nested loop over the
 * materialized fact_claims; 2.3 M comparisons for a 1,500-row claim in test/facts/claims.test.ts,
 * 164 ms for a 2,010-row claim under `npm run bench -- ingest`). The batch row is only written
 * when something was claimed.
 */
export const CLAIM_PLANNER_SQL = `SELECT set_config('enable_sort', 'off', true), set_config('enable_seqscan', 'off', true)`;
export const CLAIM_SQL = `
  WITH batch AS (SELECT nextval('fact_batch_seq') AS id),
  claimed AS (
    INSERT INTO fact_claims (seq, batch_id)
    SELECT x.seq, (SELECT id FROM batch) FROM (
      SELECT o.seq, sum(coalesce(o.bytes, 0)) OVER (ORDER BY o.created_at ROWS UNBOUNDED PRECEDING)
          - coalesce(o.bytes, 0) AS before
      FROM fact_outbox o
      WHERE o.fact_table = $1 AND (o.not_before IS NULL OR o.not_before <= now())
        AND NOT EXISTS (SELECT 1 FROM fact_claims c WHERE c.seq = o.seq OFFSET 0)
      ORDER BY o.created_at LIMIT $2) x
    WHERE x.before < $3
    ON CONFLICT DO NOTHING
    RETURNING 1),
  counted AS (SELECT count(*)::int AS n FROM claimed),
  opened AS (
    INSERT INTO fact_batches (id, fact_table, claimed_at)
    SELECT batch.id, $1, now() FROM batch, counted WHERE counted.n > 0)
  SELECT (SELECT id FROM batch)::text AS id, (SELECT n FROM counted) AS n`;

/**
 * Claims up to `limit` pending rows of a table as one new batch, oldest first (resting rows
 * skipped), and answers its id (undefined when nothing was due). It stops early at `maxBytes`: a
 * row is taken while the rows before it hold fewer bytes (the first always is, so a batch holds at
 * most maxBytes plus one row; migration 0020). The claim writes a narrow
 * fact_claims row per fact (migration 0017); the seq primary key makes two writers' claims
 * exclusive. The rows are read in a second statement (readBatch), on purpose: a row another writer
 * claimed, inserted and deleted while this claim ran can be claimed again (its claim row is gone),
 * and only a fresh snapshot sees that its outbox row is gone too.
 */
export async function claimRows(
  sql: Sql,
  table: string,
  limit: number,
  maxBytes: number = Number.MAX_SAFE_INTEGER,
): Promise<string | undefined> {
  const [claim] = await sql.begin(async (tx) => {
    await tx.unsafe(CLAIM_PLANNER_SQL);
    return tx.unsafe<{ id: string; n: number }[]>(CLAIM_SQL, [table, limit, maxBytes]);
  });
  return claim && claim.n > 0 ? claim.id : undefined;
}

/**
 * Which of `tables` have work for a writer: a row a claim would take now (not resting, not claimed),
 * or a batch claimed more than `staleSecs` ago (its writer failed or vanished). One statement for
 * every table: an idle writer looks with it instead of a claim per table (each claim opens a
 * transaction and draws a batch id). An idle service used 31-34 ms of CPU a second with the claims,
 * 15-18 ms with the look, 13 ms with no writer at all.
 */
export async function tablesWithWork(sql: Sql, tables: readonly string[], staleSecs: number): Promise<Set<string>> {
  if (tables.length === 0) {
    return new Set();
  }
  const rows = await sql<{ t: string }[]>`
    SELECT t FROM unnest(${tables as string[]}::text[]) AS t
    WHERE EXISTS (
        SELECT 1 FROM fact_outbox o
        WHERE o.fact_table = t AND (o.not_before IS NULL OR o.not_before <= now())
          AND NOT EXISTS (SELECT 1 FROM fact_claims c WHERE c.seq = o.seq))
      OR EXISTS (
        SELECT 1 FROM fact_batches b
        WHERE b.fact_table = t AND b.claimed_at < now() - make_interval(secs => ${staleSecs}))`;
  return new Set(rows.map((r) => r.t));
}

/**
 * Re-takes a batch claimed earlier whose writer did not finish it (crash, outage, or a replay), for
 * a retry, and answers its id. One statement, so two writers never retry the same batch at once.
 */
export async function retakeStaleBatch(sql: Sql, table: string, olderThanMs: number): Promise<string | undefined> {
  const age = olderThanMs / 1000;
  const [stale] = await sql<{ id: string }[]>`
    UPDATE fact_batches SET claimed_at = now()
    WHERE id = (
        SELECT id FROM fact_batches
        WHERE fact_table = ${table} AND claimed_at < now() - make_interval(secs => ${age})
        ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
      AND claimed_at < now() - make_interval(secs => ${age})
    RETURNING id::text`;
  return stale?.id;
}

/** Makes a batch whose insert failed due for a retry on the next pass (it keeps its id and token). */
export async function markBatchForRetry(sql: Sql, batchId: string): Promise<void> {
  await sql`UPDATE fact_batches SET claimed_at = 'epoch' WHERE id = ${batchId}`;
}

/**
 * Writes rows back as an already-claimed batch that is due at once (replayed dead letters): the
 * writer then treats them like a retry and skips fact ids ClickHouse already holds.
 */
export async function insertRetryBatch(sql: Sql, table: string, rows: OutboxRow[]): Promise<string> {
  const payload = JSON.stringify(rows.map((r) => ({ f: r.factId, p: r.projectId, r: r.row })));
  const [batch] = await sql<{ id: string }[]>`
    WITH batch AS (
      INSERT INTO fact_batches (id, fact_table, claimed_at) VALUES (nextval('fact_batch_seq'), ${table}, 'epoch')
      RETURNING id),
    added AS (
      INSERT INTO fact_outbox (fact_table, fact_id, project_id, row, bytes)
      SELECT ${table}, x->>'f', (x->>'p')::uuid, x->'r', octet_length((x->'r')::text)
      FROM json_array_elements(${payload}::text::json) AS x
      RETURNING seq),
    claimed AS (INSERT INTO fact_claims (seq, batch_id) SELECT seq, (SELECT id FROM batch) FROM added)
    SELECT id::text FROM batch`;
  return batch?.id ?? '';
}

/**
 * Gives rows back to the queue (their install's attribution is not decided yet). They rest a
 * quarter of their age, between 1 and 30 s, before a claim takes them again (wakeRestingRows ends
 * that early), so waiting rows are not claimed and given back on every tick. One statement: a
 * claim never sees a row unclaimed but not yet resting.
 */
export async function releaseRows(sql: Sql, seqs: string[]): Promise<void> {
  if (seqs.length > 0) {
    await sql`
      WITH unclaimed AS (DELETE FROM fact_claims WHERE seq = ANY(${seqs}::bigint[]))
      UPDATE fact_outbox SET
        not_before = now() + LEAST(${LONGEST_REST}::interval, GREATEST(interval '1 second', (now() - created_at) / 4))
      WHERE seq = ANY(${seqs}::bigint[])`;
  }
}

/**
 * The install's attribution is decided: its resting rows may be claimed at once. Rows a writer is
 * giving back right now are skipped rather than waited for (that wait held up the decision's
 * whole commit group); such a row goes out when its rest ends (at most 30 s).
 */
export async function wakeRestingRows(sql: Sql, projectId: string, installInstanceId: string): Promise<void> {
  await sql`UPDATE fact_outbox SET not_before = NULL WHERE seq IN (
    SELECT seq FROM fact_outbox
    WHERE project_id = ${projectId} AND enrich_install = ${installInstanceId} AND not_before IS NOT NULL
    FOR UPDATE SKIP LOCKED)`;
}

/**
 * Deletes a batch: its claims, its rows and the batch, in one statement, so no claim ever sees
 * one of its rows in the outbox without its claim. The rows go by primary key lookups (= ANY of
 * the claimed seqs); a semi join walked the outbox's key from its head to the batch's last row.
 */
/** A batch's claims, rows and batch row, once ClickHouse holds it (one statement). */
export const DELETE_BATCH_SQL = `
  WITH claims AS (DELETE FROM fact_claims WHERE batch_id = $1 RETURNING seq),
  facts AS (DELETE FROM fact_outbox WHERE seq = ANY(ARRAY(SELECT seq FROM claims)))
  DELETE FROM fact_batches WHERE id = $1`;

export async function deleteBatch(sql: Sql | Tx, batchId: string): Promise<void> {
  await sql.unsafe(DELETE_BATCH_SQL, [batchId]);
}

/** deleteBatch's statement, answering the seqs of the outbox rows it removed. */
const DELETE_BATCH_RETURNING_SQL = `
  WITH claims AS (DELETE FROM fact_claims WHERE batch_id = $1 RETURNING seq),
  facts AS (DELETE FROM fact_outbox WHERE seq = ANY(ARRAY(SELECT seq FROM claims)) RETURNING seq),
  batch AS (DELETE FROM fact_batches WHERE id = $1)
  SELECT seq::text FROM facts`;

/**
 * Deletes the batch and dead-letters its refused rows, only those this writer still held: a writer
 * that stalled past the stale-claim age may find its batch retaken and finished by another writer
 * (which dead-lettered the same rows), or the rows deleted with their user. Dead-lettering them
 * anyway left one fact two pending dead letters, both replayed into ClickHouse. Rows another
 * transaction is deleting are waited for, then found gone.
 */
export async function deadLetter(
  sql: Sql,
  table: string,
  batchId: string,
  failed: { row: ClaimedRow; reason: string }[],
): Promise<void> {
  await sql.begin(async (tx) => {
    const held = new Set((await tx.unsafe<{ seq: string }[]>(DELETE_BATCH_RETURNING_SQL, [batchId])).map((r) => r.seq));
    for (const f of failed.filter((x) => held.has(x.row.seq))) {
      // A row jsonb refuses (a lone surrogate escape) must still go: its batch would stay claimed,
      // be retaken first on every pass and hold back the table's later facts of every project.
      await tx`INSERT INTO fact_dead_letters (fact_table, fact_id, project_id, row, reason)
        VALUES (${table}, ${f.row.factId}, ${f.row.projectId}, ${storableJson(f.row.json)}::text::jsonb,
          ${storable(cutChars(f.reason, 2000))})`;
    }
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

export type OutboxTableStatus = {
  table: string;
  rows: number;
  claimed: number;
  /** Bytes of the rows' JSON (rows written before Postgres migration 0020 count as 0). */
  bytes: number;
  oldestCreatedAt: Date;
};

/** Rows waiting per table (exact; for operators), how many are claimed, their bytes, and the oldest row's age. */
export async function outboxStatus(sql: Sql): Promise<OutboxTableStatus[]> {
  const rows = await sql<{ fact_table: string; n: number; claimed: number; bytes: string; oldest: Date }[]>`
    SELECT o.fact_table, count(*)::int AS n, count(c.seq)::int AS claimed,
      coalesce(sum(o.bytes), 0)::text AS bytes, min(o.created_at) AS oldest
    FROM fact_outbox o LEFT JOIN fact_claims c ON c.seq = o.seq GROUP BY o.fact_table ORDER BY o.fact_table`;
  return rows.map((r) => ({
    table: r.fact_table,
    rows: r.n,
    claimed: r.claimed,
    bytes: Number(r.bytes),
    oldestCreatedAt: r.oldest,
  }));
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

/**
 * Which of the facts `factIds` (one table and project) the outbox still holds, other than as the
 * rows `exceptSeqs` (the asking batch's own): their rows are still on the way to ClickHouse.
 */
export async function findQueuedFacts(
  sql: Sql,
  table: string,
  projectId: string,
  factIds: string[],
  exceptSeqs: string[],
): Promise<Set<string>> {
  const rows = await sql<{ fact_id: string }[]>`
    SELECT DISTINCT fact_id FROM fact_outbox
    WHERE fact_table = ${table} AND project_id = ${projectId} AND fact_id = ANY(${factIds}::text[])
      AND seq <> ALL(${exceptSeqs}::bigint[])`;
  return new Set(rows.map((r) => r.fact_id));
}

/**
 * The rows of facts `factIds` (one table and project) that are pending dead letters, by fact id
 * (the oldest copy): a fact ClickHouse refused, as the writer enriched it.
 */
export async function findDeadLetterRows(
  sql: Sql,
  table: string,
  projectId: string,
  factIds: string[],
): Promise<Map<string, Record<string, unknown>>> {
  const rows = await sql<{ fact_id: string; row: Record<string, unknown> }[]>`
    SELECT DISTINCT ON (fact_id) fact_id, row FROM fact_dead_letters
    WHERE fact_table = ${table} AND project_id = ${projectId} AND fact_id = ANY(${factIds}::text[])
      AND replayed_at IS NULL
    ORDER BY fact_id, id`;
  return new Map(rows.map((r) => [r.fact_id, r.row]));
}
