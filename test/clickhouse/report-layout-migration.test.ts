// Migration 0019 rebuilds the report aggregates (yearly partitions, 1,024-row granules) by copying
// each into a new table and swapping the two. Its statements are written to be re-run after a
// crash, so running them again over stored facts must keep every aggregate exactly as it was, and
// the views must feed the swapped tables afterwards (raw table → campaign_daily →
// campaign_platform_daily included).
import { beforeAll, describe, expect, it } from 'vitest';
import type { ClickHouseClient } from '../../src/store/clickhouse/client.ts';
import { aggregateContents, PAGE_AGGREGATES } from '../support/aggregates.ts';
import { rerunChMigration } from '../support/ch-migrations.ts';
import { writeGeneratedFacts } from '../support/generated-facts.ts';
import { chJson, migratedTestClickHouse } from '../support/harness.ts';

let ch: ClickHouseClient;
beforeAll(async () => {
  ch = await migratedTestClickHouse();
});

const json = <T>(query: string) => chJson<T>(ch, query);

const write = (projectId: string, seed: number) => writeGeneratedFacts(ch, projectId, seed, 'layout');

describe('report aggregates layout (clickhouse migration 0019)', () => {
  it('when the rebuild runs again over stored facts, then every aggregate is unchanged and views feed the new tables', async () => {
    await write('layout-a', 1);
    const before = await Promise.all(PAGE_AGGREGATES.map((t) => aggregateContents(ch, t)));

    await rerunChMigration(ch, '0019_report_aggregates_layout.sql');

    const after = await Promise.all(PAGE_AGGREGATES.map((t) => aggregateContents(ch, t)));
    expect(after).toEqual(before);
    expect(before.every((rows) => rows.length > 0)).toBe(true);
    const [layout] = await json<{ engine_full: string }>(
      `SELECT engine_full FROM system.tables WHERE database = currentDatabase() AND name = 'campaign_daily'`,
    );
    expect(layout?.engine_full).toContain('PARTITION BY toYear(day)');
    expect(layout?.engine_full).toContain('index_granularity = 1024');
    const [left] = await json<{ n: string }>(
      `SELECT toString(count()) AS n FROM system.tables WHERE database = currentDatabase() AND name LIKE '%_rebuild'`,
    );
    expect(left?.n).toBe('0');

    await write('layout-b', 2);
    const rollup = (table: string) =>
      json<{ clicks: string; installs: string }>(
        `SELECT toString(sum(clicks)) AS clicks, toString(sum(installs)) AS installs FROM ${table} WHERE project_id = 'layout-b'`,
      );
    const [daily] = await rollup('campaign_daily');
    expect(Number(daily?.clicks)).toBeGreaterThan(0);
    expect(await rollup('campaign_platform_daily')).toEqual([daily]);
    const [events] = await json<{ n: string }>(
      `SELECT toString(count()) AS n FROM campaign_event_daily WHERE project_id = 'layout-b'`,
    );
    expect(Number(events?.n)).toBeGreaterThan(0);
  });
});
