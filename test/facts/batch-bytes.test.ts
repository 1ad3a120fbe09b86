// A batch's size in bytes (migration 0020, FLUSH_BATCH_BYTES): a claim stops once the rows it took
// hold the byte cap, so large rows (client bodies may be 64 KiB) go to ClickHouse in smaller
// batches instead of one that no insert can take. A table name of its own keeps the other tests'
// rows (same database, running alongside) out of these claims.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { flushFactBatch } from '../../src/domain/facts/flush-facts.ts';
import { claimRows, insertOutboxRows, readBatch } from '../../src/store/postgres/fact-outbox.ts';
import { chJson, newProject, useHarness } from '../support/harness.ts';

const h = useHarness();
const PAD = 'x'.repeat(5000);

/** n rows of one size in a table of their own; answers the table, the fact ids and a row's bytes. */
async function bigRows(n: number) {
  const { deps } = h();
  const p = await newProject(deps);
  const table = `bytes_${randomUUID().slice(0, 8)}`;
  const ids = Array.from({ length: n }, (_, i) => `f_${String(i).padStart(4, '0')}`);
  const row = (id: string) => ({ fact_id: id, project_id: p.project.id, pad: PAD });
  await insertOutboxRows(
    deps.sql,
    ids.map((id) => ({ table, factId: id, projectId: p.project.id, row: row(id) })),
  );
  return { table, ids, projectId: p.project.id, bytes: JSON.stringify(row(ids[0] ?? '')).length };
}

async function claimed(table: string, limit: number, maxBytes?: number): Promise<string[]> {
  const batch = await readBatch(h().deps.sql, await claimRows(h().deps.sql, table, limit, maxBytes));
  return batch?.rows.map((r) => r.factId) ?? [];
}

describe('batch bytes', () => {
  it('when rows are large, then a claim takes rows while those before hold less than the cap, the first whatever its size', async () => {
    const { table, ids, bytes } = await bigRows(12);

    const four = await claimed(table, 100, 3 * bytes + 1);
    const one = await claimed(table, 100, 1);
    const rest = await claimed(table, 100);

    expect(four).toEqual(ids.slice(0, 4));
    expect(one).toEqual(ids.slice(4, 5));
    expect(rest).toEqual(ids.slice(5));
  });

  it('when the outbox holds more bytes than a batch may, then the writer moves them in batches under the cap and each row lands once', async () => {
    const { deps } = h();
    const { table, ids, projectId, bytes } = await bigRows(30);
    await deps.ch.command({
      query: `CREATE TABLE ${table} (fact_id String, project_id String, pad String) ENGINE = MergeTree ORDER BY fact_id`,
    });

    const batches: number[] = [];
    for (;;) {
      const r = await flushFactBatch(deps, table, { maxBatchBytes: 4 * bytes });
      if (r.inserted === 0) {
        break;
      }
      batches.push(r.inserted);
    }

    expect(batches).toEqual([4, 4, 4, 4, 4, 4, 4, 2]);
    const [stored] = await chJson<{ rows: string; unique: string }>(
      deps.ch,
      `SELECT toString(count()) AS rows, toString(uniqExact(fact_id)) AS unique FROM ${table} WHERE project_id = {p:String}`,
      { p: projectId },
    );
    expect(stored).toEqual({ rows: String(ids.length), unique: String(ids.length) });
  });
});
