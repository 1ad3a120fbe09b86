// Writes fact rows into their ClickHouse raw table. The dedup token makes a retried insert of the
// same batch land once, in the raw table and in every materialized view fed by it.
import type { ClickHouseClient } from './client.ts';

export async function insertFactRows(
  ch: ClickHouseClient,
  table: string,
  rows: readonly object[],
  dedupToken: string,
  signal?: AbortSignal,
): Promise<void> {
  await ch.insert({
    table,
    values: rows,
    format: 'JSONEachRow',
    abort_signal: signal,
    clickhouse_settings: {
      insert_deduplicate: 1,
      insert_deduplication_token: dedupToken,
      deduplicate_blocks_in_dependent_materialized_views: 1,
      date_time_input_format: 'best_effort',
      input_format_skip_unknown_fields: 0,
      // No cap on the partitions one batch writes (ClickHouse refuses more than 100 by default).
      // Spend rows may be of any day since 1970 and spend is partitioned by month: a valid upload
      // of 150 months failed on every retry, and its failing batch paused every lane each round.
      max_partitions_per_insert_block: '0',
    },
  });
}

// ClickHouse error types that say "this data is bad" (a retry can never succeed). Anything else the
// server answers (TOO_MANY_PARTS, MEMORY_LIMIT_EXCEEDED, UNKNOWN_TABLE, TIMEOUT_EXCEEDED, …) is
// treated like an outage: the rows stay queued instead of being dead-lettered en masse.
const DATA_ERROR =
  /^(CANNOT_PARSE|CANNOT_READ|CANNOT_CONVERT|CANNOT_INSERT_NULL|INCORRECT_DATA|INCORRECT_NUMBER_OF_COLUMNS|TYPE_MISMATCH|ILLEGAL_TYPE|ILLEGAL_COLUMN|NO_SUCH_COLUMN|THERE_IS_NO_COLUMN|ARGUMENT_OUT_OF_BOUND|VALUE_IS_OUT_OF_RANGE|DECIMAL_OVERFLOW|VIOLATED_CONSTRAINT|TOO_LARGE_STRING_SIZE|TOO_LARGE_ARRAY_SIZE|SIZES_OF_ARRAYS_DONT_MATCH|BAD_ARGUMENTS|UNEXPECTED_END_OF_FILE)/;

/**
 * True when ClickHouse answered and refused the data itself. Checked by shape, not `instanceof`:
 * the embedded engine (chdb) throws its own copy of ClickHouseError.
 */
export function isRejection(err: unknown): boolean {
  const e = err as { code?: unknown; type?: unknown; constructor?: { name?: string } } | undefined;
  const fromServer =
    e?.constructor?.name === 'ClickHouseError' || (typeof e?.code === 'string' && /^\d+$/.test(e.code));
  return fromServer && typeof e?.type === 'string' && DATA_ERROR.test(e.type);
}

/** The key findPresentFacts answers with: a fact id is unique within its project only. */
export const presentKey = (projectId: string, factId: string): string => `${projectId}/${factId}`;

/**
 * Which of `facts` `table` already holds (their id in `idColumn`), as presentKey(project, id), for
 * batches that may have landed before: a retried or replayed fact is then skipped instead of counted
 * twice. Matched per project: capture-event's fact id is the client's event_id, unique per project
 * only, and a bare id set made a retried batch drop another project's event with the same id (it
 * had answered "Event captured successfully"). Looked up in chunks so the bound parameter stays
 * small over HTTP.
 */
export async function findPresentFacts(
  ch: ClickHouseClient,
  table: string,
  idColumn: string,
  facts: readonly { projectId: string; factId: string }[],
  signal?: AbortSignal,
): Promise<Set<string>> {
  const present = new Set<string>();
  const CHUNK = 1000;
  for (let i = 0; i < facts.length; i += CHUNK) {
    const chunk = facts.slice(i, i + CHUNK);
    // Identifiers come from FACT_TABLES / FACT_ID_COLUMN (constants), values are bound.
    const rs = await ch.query({
      query: `SELECT DISTINCT toString(project_id) AS p, toString(${idColumn}) AS id FROM ${table}
        WHERE project_id IN {projects:Array(String)} AND ${idColumn} IN {ids:Array(String)}`,
      format: 'JSONEachRow',
      query_params: {
        projects: [...new Set(chunk.map((f) => f.projectId))],
        ids: [...new Set(chunk.map((f) => f.factId))],
      },
      abort_signal: signal,
    });
    for (const r of await rs.json<{ p: string; id: string }>()) {
      present.add(presentKey(r.p, r.id));
    }
  }
  return present;
}
