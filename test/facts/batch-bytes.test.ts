// A batch's size in bytes (migration 0020, FLUSH_BATCH_BYTES): a claim stops once the rows it took
// hold the byte cap, so large rows (client bodies may be 64 KiB) go to ClickHouse in smaller
// batches instead of one that no insert can take; the writer takes such batches one after another,
// and a dead-letter replay writes its retry batches under the same cap. The first two tests use a
// table name of their own, the others count one project's clicks only, so the other tests' rows
// (same database, running alongside) change nothing here.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { FLUSH_BATCH_BYTES, flushAllFacts, flushFactBatch } from '../../src/domain/facts/flush-facts.ts';
import { readFactStatus } from '../../src/domain/facts/read-fact-status.ts';
import { replayDeadLetters } from '../../src/domain/facts/replay-dead-letters.ts';
import { newTimeId } from '../../src/lib/ids.ts';
import { claimRows, insertOutboxRows, readBatch } from '../../src/store/postgres/fact-outbox.ts';
import { campaignWithListings, clickLink, randomIp } from '../support/client.ts';
import { chCounts, until, whileWriting } from '../support/fact-counts.ts';
import { chJson, newProject, useHarness } from '../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });
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

  it('when rows wait, then facts status gives their bytes per table, claimed or not', async () => {
    const { table, bytes } = await bigRows(12);
    await claimed(table, 5);

    const status = await readFactStatus(h().deps);

    expect(status.outbox.find((t) => t.table === table)).toMatchObject({ rows: 12, claimed: 5, bytes: 12 * bytes });
    expect(status.totalBytes).toBeGreaterThanOrEqual(12 * bytes);
    await h().deps.sql`DELETE FROM fact_outbox WHERE fact_table = ${table}`;
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

  it('when large rows wait, then the writer takes batch after batch without waiting a round between them', async () => {
    // Arrange: one real click as a template, and 40 more of ~5 KB each (a long referrer)
    const { deps } = h();
    const p = await newProject(deps);
    const campaign = await campaignWithListings(deps, p);
    await clickLink(h(), campaign, { ip: randomIp() });
    const [first] = await deps.sql<{ row: Record<string, unknown> }[]>`
      SELECT row FROM fact_outbox WHERE project_id = ${p.project.id} AND fact_table = 'clicks'`;
    const ids = Array.from({ length: 40 }, () => newTimeId());
    await insertOutboxRows(
      deps.sql,
      ids.map((id) => ({
        table: 'clicks',
        factId: id,
        projectId: p.project.id,
        row: { ...first?.row, click_id: id, referrer: PAD },
      })),
    );
    // Act: batches of about 4 rows (11 in all), a drained table looked at once a minute: the writer
    // looks at once when it starts, and any round it waited between batches would cost a minute,
    // which the poll below does not wait for (however slow a busy machine makes each insert).
    await whileWriting(deps, { intervalMs: 60_000, maxBatchBytes: 4 * (PAD.length + 500) }, () =>
      until(
        'the 41 clicks reached ClickHouse without the writer waiting a round',
        async () => (await chCounts(deps, 'clicks', p.project.id)).rows === 41,
        40_000,
      ),
    );

    // Assert
    expect(await chCounts(deps, 'clicks', p.project.id)).toEqual({ rows: 41, unique: 41 });
  }, 60_000);

  it('when dead letters hold more bytes than a batch may, then a replay writes them as several retry batches under the cap and each lands once', async () => {
    // Arrange: 300 dead-lettered clicks of ~60 KB (18 MB) of one project
    const { deps } = h();
    const p = await newProject(deps);
    const campaign = await campaignWithListings(deps, p);
    await clickLink(h(), campaign, { ip: randomIp() });
    await flushAllFacts(deps, ['clicks']);
    const [base] = await chJson<Record<string, unknown>>(
      deps.ch,
      'SELECT * FROM clicks WHERE project_id = {p:String}',
      {
        p: p.project.id,
      },
    );
    const referrer = 'r'.repeat(60_000);
    const letters = Array.from({ length: 300 }, () => {
      const id = newTimeId();
      return { ...base, click_id: id, referrer, ts: '2026-11-27 10:00:00.000', day: '2026-11-27' };
    });
    for (const l of letters) {
      await deps.sql`INSERT INTO fact_dead_letters (fact_table, fact_id, project_id, row, reason)
        VALUES ('clicks', ${String(l.click_id)}, ${p.project.id}, ${deps.sql.json(l as never)}, 'test')`;
    }

    // Act
    await replayDeadLetters(deps, { table: 'clicks' });
    const batches = await deps.sql<{ rows: number; bytes: number }[]>`
      SELECT count(*)::int AS rows, sum(o.bytes)::int AS bytes
      FROM fact_outbox o JOIN fact_claims c ON c.seq = o.seq
      WHERE o.project_id = ${p.project.id} GROUP BY c.batch_id ORDER BY rows DESC`;
    await flushAllFacts(deps, ['clicks']);

    // Assert: two batches, the first stopped by the cap, none past the cap by more than one row
    expect(batches).toHaveLength(2);
    expect(batches.reduce((n, b) => n + b.rows, 0)).toBe(300);
    expect(batches[0]?.bytes).toBeGreaterThanOrEqual(FLUSH_BATCH_BYTES);
    for (const b of batches) {
      expect(b.bytes).toBeLessThan(FLUSH_BATCH_BYTES + 62_000);
    }
    expect(await chCounts(deps, 'clicks', p.project.id)).toEqual({ rows: 301, unique: 301 });
  });
});
