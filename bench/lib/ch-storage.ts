// Bytes ClickHouse keeps per fact, from system.parts (active parts only: bytes_on_disk and rows
// per table). Raw tables are the fact writer's (domain/facts/tables.ts); every other table with
// parts is a materialized-view target (clicks_by_key, campaign_daily, cohorts, …) or bookkeeping
// (schema_migrations, left out).
import { FACT_TABLES } from '../../src/domain/facts/tables.ts';
import type { ClickHouseClient } from '../../src/store/clickhouse/client.ts';

export type TableParts = { table: string; rows: number; bytes: number; parts: number };
export type Storage = {
  tables: TableParts[];
  rawRows: number;
  rawBytes: number;
  /** Every table but schema_migrations: raw tables plus view targets. */
  allBytes: number;
  /** Raw tables' bytes ÷ raw rows. */
  rawBytesPerRow: number;
  /** All bytes ÷ raw facts (what one fact costs with everything derived from it). */
  allBytesPerFact: number;
  /** Compressed bytes per row of each raw table's columns, largest first (where the bytes go). */
  columns: Record<string, Record<string, number>>;
};

const RAW = new Set<string>(FACT_TABLES);

export async function readStorage(ch: ClickHouseClient): Promise<Storage> {
  const rs = await ch.query({
    query: `SELECT table, toUInt64(sum(rows)) AS rows, toUInt64(sum(bytes_on_disk)) AS bytes, toUInt32(count()) AS parts
      FROM system.parts WHERE active AND database = currentDatabase() AND table != 'schema_migrations'
      GROUP BY table ORDER BY table`,
    format: 'JSONEachRow',
  });
  const tables = (await rs.json<{ table: string; rows: string; bytes: string; parts: number }>()).map((r) => ({
    table: r.table,
    rows: Number(r.rows),
    bytes: Number(r.bytes),
    parts: Number(r.parts),
  }));
  const raw = tables.filter((t) => RAW.has(t.table));
  const rawRows = raw.reduce((s, t) => s + t.rows, 0);
  const rawBytes = raw.reduce((s, t) => s + t.bytes, 0);
  const allBytes = tables.reduce((s, t) => s + t.bytes, 0);
  const cs = await ch.query({
    query: `SELECT table, name, toUInt64(sum(data_compressed_bytes)) AS bytes
      FROM system.columns WHERE database = currentDatabase() AND table IN ({raw:Array(String)})
      GROUP BY table, name ORDER BY table, bytes DESC`,
    query_params: { raw: raw.map((t) => t.table) },
    format: 'JSONEachRow',
  });
  const columns: Record<string, Record<string, number>> = {};
  for (const c of await cs.json<{ table: string; name: string; bytes: string }>()) {
    const rows = raw.find((t) => t.table === c.table)?.rows ?? 0;
    const perRow = rows > 0 ? Math.round((Number(c.bytes) / rows) * 100) / 100 : 0;
    columns[c.table] = { ...columns[c.table], [c.name]: perRow };
  }
  return {
    tables,
    rawRows,
    rawBytes,
    allBytes,
    rawBytesPerRow: rawBytes / rawRows,
    allBytesPerFact: allBytes / rawRows,
    columns,
  };
}

/** Merges every table's parts (OPTIMIZE … FINAL): the settled size, as after background merges. */
export async function mergeAll(ch: ClickHouseClient, tables: readonly string[]): Promise<void> {
  for (const t of tables) {
    if (!/^[a-z0-9_]+$/.test(t)) {
      throw new Error(`bad table name ${t}`);
    }
    await ch.command({ query: `OPTIMIZE TABLE ${t} FINAL` });
  }
}
