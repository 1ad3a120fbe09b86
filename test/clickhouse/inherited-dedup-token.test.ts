// The embedded engine keeps every setting a call sends for the rest of the process, the insert dedup
// token too (store/clickhouse/client.ts ownDedupTokens). An insert or INSERT statement that names no
// token must not take the last one sent, or the second such insert into a table would be dropped as
// a duplicate of the first.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ClickHouseClient } from '../../src/store/clickhouse/client.ts';
import { insertFactRows } from '../../src/store/clickhouse/facts.ts';
import { chJson, testClickHouse } from '../support/harness.ts';

async function dedupTable(ch: ClickHouseClient): Promise<string> {
  const table = `token_probe_${randomUUID().replaceAll('-', '')}`;
  await ch.command({
    query: `CREATE TABLE ${table} (x UInt32) ENGINE = MergeTree ORDER BY x SETTINGS non_replicated_deduplication_window = 100`,
  });
  return table;
}

async function stored(ch: ClickHouseClient, table: string): Promise<number[]> {
  const rows = await chJson<{ x: number }>(ch, `SELECT x FROM ${table} ORDER BY x`);
  return rows.map((r) => Number(r.x));
}

describe('insert dedup tokens in the embedded engine', () => {
  it('when inserts without a token follow a fact batch with one, then each of them is stored', async () => {
    const ch = await testClickHouse();
    const table = await dedupTable(ch);
    await insertFactRows(ch, table, [{ x: 1 }], `batch-${randomUUID()}`);

    await ch.insert({ table, values: [{ x: 2 }], format: 'JSONEachRow' });
    await ch.insert({ table, values: [{ x: 3 }], format: 'JSONEachRow' });
    await ch.command({ query: `INSERT INTO ${table} SELECT 4` });
    await ch.command({ query: `INSERT INTO ${table} SELECT 5` });

    expect(await stored(ch, table)).toEqual([1, 2, 3, 4, 5]);
  });

  it('when a fact batch is retried with its token, then it is stored once', async () => {
    const ch = await testClickHouse();
    const table = await dedupTable(ch);
    const token = `batch-${randomUUID()}`;
    await insertFactRows(ch, table, [{ x: 1 }, { x: 2 }], token);
    await ch.insert({ table, values: [{ x: 9 }], format: 'JSONEachRow' });

    await insertFactRows(ch, table, [{ x: 1 }, { x: 2 }], token);

    expect(await stored(ch, table)).toEqual([1, 2, 9]);
  });
});
