// Writes fact rows into their ClickHouse raw table. The dedup token makes a retried insert of the
// same batch land once, in the raw table and in every materialized view fed by it.
import { ClickHouseError } from '@clickhouse/client';
import type { ClickHouseClient } from './client.ts';

export async function insertFactRows(
  ch: ClickHouseClient,
  table: string,
  rows: Record<string, unknown>[],
  dedupToken: string,
): Promise<void> {
  await ch.insert({
    table,
    values: rows,
    format: 'JSONEachRow',
    clickhouse_settings: {
      insert_deduplicate: 1,
      insert_deduplication_token: dedupToken,
      deduplicate_blocks_in_dependent_materialized_views: 1,
      date_time_input_format: 'best_effort',
      input_format_skip_unknown_fields: 0,
    },
  });
}

/** True when ClickHouse answered and refused the data (as opposed to being unreachable). */
export function isRejection(err: unknown): boolean {
  return err instanceof ClickHouseError || (err as { name?: string })?.name === 'ClickHouseError';
}
