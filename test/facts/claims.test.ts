// Writers' claims (migration 0017): a claim is a row per fact in fact_claims, exclusive by the
// outbox seq. Writers claiming, giving back and deleting batches of one table at the same time
// each get every fact at most once, and together all of them. A table name of its own keeps the
// other tests' rows (same database, running alongside) out of these claims.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { FLUSH_BATCH_BYTES } from '../../src/domain/facts/flush-facts.ts';
import {
  CLAIM_PLANNER_SQL,
  CLAIM_SQL,
  claimRows,
  DELETE_BATCH_SQL,
  deleteBatch,
  insertOutboxRows,
  markBatchForRetry,
  type OutboxRow,
  READ_BATCH_SQL,
  readBatch,
  releaseRows,
  retakeStaleBatch,
} from '../../src/store/postgres/fact-outbox.ts';
import { newProject, useHarness } from '../support/harness.ts';

const h = useHarness();

async function fill(table: string, projectId: string, n: number): Promise<string[]> {
  const ids = Array.from({ length: n }, (_, i) => `f_${i}`);
  for (let i = 0; i < n; i += 500) {
    const rows: OutboxRow[] = ids.slice(i, i + 500).map((id) => ({ table, factId: id, projectId, row: { id } }));
    await insertOutboxRows(h().deps.sql, rows);
  }
  return ids;
}

describe('fact claims', () => {
  it('when six writers claim, give back and delete batches of one table at once, then every fact is taken exactly once', async () => {
    // Arrange: 3,000 pending rows of a table only this test uses
    const { deps } = h();
    const p = await newProject(deps);
    const table = `claims_${randomUUID().slice(0, 8)}`;
    const ids = await fill(table, p.project.id, 3000);
    const taken: string[] = [];
    // Act: each writer claims 97 rows, gives one back now and then (due again after its rest is
    // cleared below), and deletes the rest, until nothing is left
    const writer = async (w: number) => {
      for (let round = 0; ; round++) {
        const batch = await readBatch(deps.sql, await claimRows(deps.sql, table, 97));
        if (!batch) {
          return;
        }
        const back = round % 3 === w % 3 ? batch.rows.slice(0, 1) : [];
        if (back.length > 0) {
          await releaseRows(
            deps.sql,
            back.map((r) => r.seq),
          );
          // wake them as wakeRestingRows does: rows another writer is deleting are skipped, not waited for
          await deps.sql`UPDATE fact_outbox SET not_before = NULL WHERE seq IN (
            SELECT seq FROM fact_outbox WHERE fact_table = ${table} AND not_before IS NOT NULL FOR UPDATE SKIP LOCKED)`;
        }
        taken.push(...batch.rows.slice(back.length).map((r) => r.factId));
        await deleteBatch(deps.sql, batch.batchId);
      }
    };
    // (a row given back while the others were deleting may still rest: wake it and go again)
    for (let pass = 0; pass < 5; pass++) {
      await Promise.all([0, 1, 2, 3, 4, 5].map(writer));
      const woken = await deps.sql`UPDATE fact_outbox SET not_before = NULL WHERE fact_table = ${table}`;
      if (woken.count === 0) {
        break;
      }
    }
    const [left] = await deps.sql<{ outbox: number; claims: number; batches: number }[]>`
      SELECT (SELECT count(*)::int FROM fact_outbox WHERE fact_table = ${table}) AS outbox,
        (SELECT count(*)::int FROM fact_claims c JOIN fact_outbox o ON o.seq = c.seq WHERE o.fact_table = ${table}) AS claims,
        (SELECT count(*)::int FROM fact_batches WHERE fact_table = ${table}) AS batches`;

    // Assert
    expect(taken.length).toBe(ids.length);
    expect(new Set(taken).size).toBe(ids.length);
    expect(left).toEqual({ outbox: 0, claims: 0, batches: 0 });
  });

  it('when a batch is marked for retry, then only one of two writers retrying at once takes it, with the same id and rows', async () => {
    // Arrange
    const { deps } = h();
    const p = await newProject(deps);
    const table = `claims_${randomUUID().slice(0, 8)}`;
    await fill(table, p.project.id, 5);
    const batch = await readBatch(deps.sql, await claimRows(deps.sql, table, 10));
    // Act
    const notYet = await retakeStaleBatch(deps.sql, table, 60_000);
    await markBatchForRetry(deps.sql, batch?.batchId ?? '');
    const [a, b] = await Promise.all(
      [1, 2].map(async () => readBatch(deps.sql, await retakeStaleBatch(deps.sql, table, 60_000))),
    );
    const fresh = await readBatch(deps.sql, await claimRows(deps.sql, table, 10));

    // Assert
    expect(notYet).toBeUndefined();
    const retried = [a, b].filter((x) => x !== undefined);
    expect(retried).toHaveLength(1);
    expect(retried[0]?.batchId).toBe(batch?.batchId);
    expect(retried[0]?.rows.map((r) => r.factId)).toEqual(['f_0', 'f_1', 'f_2', 'f_3', 'f_4']);
    expect(fresh).toBeUndefined();
  });

  it('when the claim is planned for "some table" (a generic plan) or for a drained one, then it reads the table through its pending index, never the whole outbox', async () => {
    // Arrange: rows of one table, fresh statistics
    const { deps } = h();
    const p = await newProject(deps);
    const table = `claims_${randomUUID().slice(0, 8)}`;
    await fill(table, p.project.id, 2000);
    await deps.sql`ANALYZE fact_outbox`;
    const explain = (generic: boolean, forTable: string) =>
      deps.sql.begin(async (tx) => {
        await tx.unsafe(CLAIM_PLANNER_SQL);
        await tx.unsafe(`SET LOCAL plan_cache_mode = ${generic ? 'force_generic_plan' : 'force_custom_plan'}`);
        await tx.unsafe(`PREPARE claim_plan_test(text, bigint, bigint) AS ${CLAIM_SQL}`);
        const rows = await tx.unsafe<{ 'QUERY PLAN': string }[]>(
          `EXPLAIN EXECUTE claim_plan_test('${forTable}', 10000, ${FLUSH_BATCH_BYTES})`,
        );
        await tx.unsafe('DEALLOCATE claim_plan_test');
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      });
    // Act
    const plans = [await explain(true, table), await explain(false, 'claims_drained'), await explain(false, table)];

    // Assert
    for (const plan of plans) {
      expect(plan).toContain('fact_outbox_pending');
      expect(plan).not.toMatch(/fact_outbox_pkey|Seq Scan on fact_outbox|Sort Key: o\./);
    }
  });
  it('when other batches hold claims while a claim runs, then each pending row probes fact_claims by its key instead of being compared with every claim held', async () => {
    // Arrange: a batch of 1,500 rows claimed and still held (a writer inserting it), and 1,500
    // pending rows of another table. Under the ingest bench the planner joined the two by comparing
    // every pending row with every held claim (a nested loop over the materialized fact_claims):
    // 160 ms for a 2,000-row claim while 238 claims were held.
    const { deps } = h();
    const p = await newProject(deps);
    const held = `claims_${randomUUID().slice(0, 8)}`;
    const table = `claims_${randomUUID().slice(0, 8)}`;
    await fill(held, p.project.id, 1500);
    // statistics as autovacuum last took them: the outbox full, fact_claims nearly empty
    await deps.sql`ANALYZE fact_claims`;
    const heldBatch = await claimRows(deps.sql, held, 10_000);
    await fill(table, p.project.id, 1500);
    await deps.sql`ANALYZE fact_outbox`;
    // Act: the claim, analyzed and rolled back
    const plan = await deps.sql
      .begin(async (tx) => {
        await tx.unsafe(CLAIM_PLANNER_SQL);
        const [r] = await tx.unsafe<{ 'QUERY PLAN': unknown }[]>(`EXPLAIN (ANALYZE, FORMAT JSON) ${CLAIM_SQL}`, [
          table,
          10_000,
          FLUSH_BATCH_BYTES,
        ]);
        throw Object.assign(new Error('rollback'), { plan: r?.['QUERY PLAN'] });
      })
      .catch((err: { plan?: unknown }) => err.plan);
    await deleteBatch(deps.sql, heldBatch ?? '');

    // Assert
    const nodes: Record<string, unknown>[] = [];
    const walk = (n: unknown): void => {
      if (n && typeof n === 'object') {
        if ('Node Type' in n) {
          nodes.push(n as Record<string, unknown>);
        }
        for (const v of Object.values(n)) {
          walk(v);
        }
      }
    };
    walk(plan);
    const inserted = nodes.find((n) => n['Node Type'] === 'ModifyTable' && n['Relation Name'] === 'fact_claims');
    expect(inserted?.['Actual Rows']).toBe(1500);
    const compared = nodes.reduce((sum, n) => sum + Number(n['Rows Removed by Join Filter'] ?? 0), 0);
    expect(compared).toBe(0);
  });
  it('when a batch is read or deleted, then its outbox rows are found through the primary key, whatever the statistics say', async () => {
    // Arrange: statistics taken while the outbox was nearly empty (autovacuum's ANALYZE after a
    // drain), then a 3,000-row batch. In the bench's third redirects run Postgres 18 then probed
    // fact_outbox_pending (fact_table, created_at, seq) for each claimed seq, skipping over its
    // leading columns: 1.3 ms a row, 13 s to read a 10,000-row batch.
    const { deps } = h();
    const p = await newProject(deps);
    const table = `claims_${randomUUID().slice(0, 8)}`;
    await fill(table, p.project.id, 3000);
    const batchId = await claimRows(deps.sql, table, 10_000);
    // the catalog as the bench's stalled run had it: no tuples counted, the pages there
    await deps.sql`UPDATE pg_class SET reltuples = 0 WHERE oid IN (
      SELECT c.oid FROM pg_class c WHERE c.relname IN ('fact_outbox', 'fact_claims')
      UNION SELECT indexrelid FROM pg_index WHERE indrelid IN ('fact_outbox'::regclass, 'fact_claims'::regclass))`;
    // Act
    const plans = await deps.sql.begin(async (tx) => {
      const out: string[] = [];
      for (const stmt of [READ_BATCH_SQL, DELETE_BATCH_SQL]) {
        const rows = await tx.unsafe<{ 'QUERY PLAN': string }[]>(`EXPLAIN ${stmt}`, [batchId ?? '']);
        out.push(rows.map((r) => r['QUERY PLAN']).join('\n'));
      }
      return out;
    });
    const batch = await readBatch(deps.sql, batchId);
    await deleteBatch(deps.sql, batchId ?? '');

    // Assert
    expect(batch?.rows).toHaveLength(3000);
    for (const plan of plans) {
      expect(plan).toContain('fact_outbox_pkey');
      expect(plan).not.toContain('fact_outbox_pending');
    }
  });
});
