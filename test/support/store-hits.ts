// GDPR deletion test helpers: where a user's identifiers are still found after a deletion. Every
// Postgres table and every ClickHouse table (views excluded) is searched as text for each marker
// (test/security/gdpr-*.test.ts); the answer is rows per table holding any marker.
import type { Harness } from './harness.ts';

/** Postgres tables whose rows, as text, contain a marker (scoped to nothing: markers are unique). */
export async function pgHits(harness: Harness, markers: string[]): Promise<Record<string, number>> {
  const { sql } = harness.deps;
  const tables = await sql<{ schema: string; name: string }[]>`
    SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
    WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`;
  const out: Record<string, number> = {};
  for (const t of tables) {
    const [row] = await sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM ${sql(t.schema)}.${sql(t.name)} t
      WHERE EXISTS (SELECT 1 FROM unnest(${markers}::text[]) m WHERE strpos(t::text, m) > 0)`;
    if (row && row.n > 0) {
      out[t.name] = row.n;
    }
  }
  return out;
}

/** ClickHouse tables (views excluded) with a row whose text columns contain a marker. */
export async function chHits(harness: Harness, markers: string[]): Promise<Record<string, number>> {
  const { ch } = harness.deps;
  const cols = (await (
    await ch.query({
      query: `SELECT c.table AS t, c.name AS c FROM system.columns c
        JOIN system.tables tb ON tb.database = c.database AND tb.name = c.table
        WHERE c.database = currentDatabase() AND tb.engine NOT IN ('MaterializedView', 'View')
          AND match(c.type, '^(LowCardinality\\\\()?(Nullable\\\\()?String|^Array\\\\(')`,
      format: 'JSONEachRow',
    })
  ).json()) as { t: string; c: string }[];
  const byTable = new Map<string, string[]>();
  for (const { t, c } of cols) {
    byTable.set(t, [...(byTable.get(t) ?? []), c]);
  }
  const out: Record<string, number> = {};
  for (const [table, columns] of byTable) {
    const text = `concat(${columns.map((c) => `toString(\`${c}\`)`).join(", '|', ")})`;
    const rs = await ch.query({
      query: `SELECT toUInt32(count()) AS n FROM \`${table}\` WHERE multiSearchAny(${text}, {m:Array(String)})`,
      format: 'JSONEachRow',
      query_params: { m: markers },
    });
    const n = ((await rs.json()) as { n: number }[])[0]?.n ?? 0;
    if (n > 0) {
      out[table] = n;
    }
  }
  return out;
}

/** Both stores at once: `{}` when no row holds any marker. */
export async function hitsEverywhere(harness: Harness, markers: string[]): Promise<Record<string, number>> {
  return { ...(await pgHits(harness, markers)), ...(await chHits(harness, markers)) };
}
