// Readers shared by the fact pipeline tests (test/facts): ClickHouse counts per project (rows and
// distinct fact ids, so dup = rows - unique), outbox rows per table, a poller, and a fact writer
// running around a test's body.
import { type FactWriterOptions, startFactWriter } from '../../jobs/fact-writer.ts';
import type { Deps } from '../../src/deps.ts';
import { FACT_ID_COLUMN, type FactTable } from '../../src/domain/facts/tables.ts';

/** Rows and distinct fact ids of a project in a ClickHouse table (raw tables and view targets). */
export async function chCounts(
  deps: Pick<Deps, 'ch'>,
  table: string,
  projectId: string,
): Promise<{ rows: number; unique: number }> {
  const id = (FACT_ID_COLUMN as Record<string, string>)[table] ?? 'click_id';
  const rs = await deps.ch.query({
    query: `SELECT toUInt64(count()) AS rows, toUInt64(uniqExact(${id})) AS unique FROM ${table} WHERE project_id = {p:String}`,
    format: 'JSONEachRow',
    query_params: { p: projectId },
  });
  const [r] = await rs.json<{ rows: string; unique: string }>();
  return { rows: Number(r?.rows ?? 0), unique: Number(r?.unique ?? 0) };
}

/** Outbox rows of a project per table (only tables with rows). */
export async function outboxRows(
  deps: Pick<Deps, 'sql'>,
  projectId: string,
): Promise<Partial<Record<FactTable, number>>> {
  const rows = await deps.sql<{ fact_table: FactTable; n: number }[]>`
    SELECT fact_table, count(*)::int AS n FROM fact_outbox WHERE project_id = ${projectId} GROUP BY fact_table`;
  return Object.fromEntries(rows.map((r) => [r.fact_table, r.n]));
}

/** Polls until `check` holds; fails with `what` after timeoutMs. */
export async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) {
      throw new Error(`timed out waiting until ${what}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Runs `body` while a fact writer with `opts` runs on `deps`, and stops the writer after it. */
export async function whileWriting(deps: Deps, opts: FactWriterOptions, body: () => Promise<void>): Promise<void> {
  const writer = startFactWriter(deps, opts);
  try {
    await body();
  } finally {
    await writer.stop();
  }
}
