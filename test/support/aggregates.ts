// The report page's ClickHouse aggregates (migrations 0007-0010, laid out again by 0019 and 0024):
// fed by views from the raw facts, read per page of campaigns.
import type { ClickHouseClient } from '../../src/store/clickhouse/client.ts';
import { chJson } from './harness.ts';

export const PAGE_AGGREGATES = [
  'campaign_daily',
  'campaign_event_daily',
  'campaign_payment_daily',
  'retention_cohort',
  'revenue_cohort',
];

/**
 * What an aggregate holds, merged per sorting key: sums of the summed columns, uniqMerge of the
 * distinct counts (anyLast names depend on merge order and are left out). Sorted, so two reads
 * compare. Throws for a table with neither kind of column (nothing would be compared).
 */
export async function aggregateContents(ch: ClickHouseClient, table: string): Promise<string[]> {
  const cols = await chJson<{ name: string; type: string; is_in_sorting_key: number }>(
    ch,
    `SELECT name, type, is_in_sorting_key FROM system.columns WHERE database = currentDatabase() AND table = '${table}'`,
  );
  const keys = cols.filter((c) => Number(c.is_in_sorting_key) === 1).map((c) => c.name);
  const values = cols.flatMap((c) =>
    c.type.startsWith('SimpleAggregateFunction(sum')
      ? [`toString(sum(${c.name}))`]
      : c.type.startsWith('AggregateFunction(uniq')
        ? [`toString(uniqMerge(${c.name}))`]
        : [],
  );
  if (values.length === 0) {
    throw new Error(`${table}: no summed or distinct-count column to compare`);
  }
  const rows = await chJson<Record<string, unknown>>(
    ch,
    `SELECT ${[...keys, ...values].join(', ')} FROM ${table} GROUP BY ${keys.join(', ')}`,
  );
  return rows.map((r) => JSON.stringify(r)).sort();
}
