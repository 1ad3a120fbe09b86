// Migration 0024: the report page's aggregates are written in compressed blocks of about one
// granule (min_compress_block_size 4 KiB, max 64 KiB) and their existing parts are rewritten that
// way (REWRITE PARTS). Re-running it keeps every aggregate as it was, rewrites the parts written
// with ClickHouse's default blocks, and the views go on feeding the tables.
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

const write = (projectId: string, seed: number) => writeGeneratedFacts(ch, projectId, seed, 'blocks');

/** The page aggregates as an SQL list of names. */
const TABLE_LIST = PAGE_AGGREGATES.map((t) => `'${t}'`).join(', ');

/** Waits until no mutation of the page aggregates is pending (a server runs REWRITE PARTS in the background). */
async function mutationsDone(): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const [row] = await json<{ pending: string; failed: string }>(
      `SELECT toString(countIf(is_done = 0)) AS pending, toString(countIf(latest_fail_reason != '')) AS failed
       FROM system.mutations WHERE database = currentDatabase() AND table IN (${TABLE_LIST})`,
    );
    expect(row?.failed).toBe('0');
    if (row?.pending === '0') {
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('REWRITE PARTS still pending after 30 s');
}

const activeParts = async (table: string) =>
  (
    await json<{ name: string }>(
      `SELECT name FROM system.parts WHERE database = currentDatabase() AND table = '${table}' AND active ORDER BY name`,
    )
  ).map((r) => r.name);

/** Compressed bytes of campaign_daily's `clicks`: nearly all 1 here, so mostly block headers. */
async function clickColumnBytes(): Promise<number> {
  const [row] = await json<{ b: string }>(
    `SELECT toString(sum(column_data_compressed_bytes)) AS b FROM system.parts_columns
     WHERE database = currentDatabase() AND table = 'campaign_daily' AND active AND column = 'clicks'`,
  );
  return Number(row?.b);
}

describe('report aggregates in small compressed blocks (clickhouse migration 0024)', () => {
  it('when migrated, then every page aggregate writes blocks of 4-64 KiB', async () => {
    const rows = await json<{ name: string; engine_full: string }>(
      `SELECT name, engine_full FROM system.tables WHERE database = currentDatabase() AND name IN (${TABLE_LIST})`,
    );
    expect(rows.map((r) => r.name).sort()).toEqual([...PAGE_AGGREGATES].sort());
    for (const r of rows) {
      expect(r.engine_full, r.name).toContain('min_compress_block_size = 4096');
      expect(r.engine_full, r.name).toContain('max_compress_block_size = 65536');
    }
  });

  it('when run again over parts written with the default blocks, then they are rewritten in small blocks and every aggregate is unchanged', async () => {
    await write('blocks-a', 3);
    // 51,200 rows of one campaign written with ClickHouse's default block sizes, as before 0024.
    await ch.command({
      query: `ALTER TABLE campaign_daily RESET SETTING min_compress_block_size, max_compress_block_size`,
    });
    await ch.command({
      query: `INSERT INTO campaign_daily (project_id, campaign_id, day, platform, ad_set_id, clicks)
        SELECT 'blocks-big', 7, toDate('2025-01-01') + intDiv(number, 512), 'ANDROID', toString(number % 512), 1
        FROM numbers(51200)`,
    });
    await ch.command({ query: 'OPTIMIZE TABLE campaign_daily FINAL' });
    const before = await Promise.all(PAGE_AGGREGATES.map((t) => aggregateContents(ch, t)));
    const partsBefore = await Promise.all(PAGE_AGGREGATES.map(activeParts));
    const bytesBefore = await clickColumnBytes();

    await rerunChMigration(ch, '0024_report_aggregates_small_blocks.sql');
    await mutationsDone();

    expect(await Promise.all(PAGE_AGGREGATES.map((t) => aggregateContents(ch, t)))).toEqual(before);
    expect(before.every((rows) => rows.length > 0)).toBe(true);
    const partsAfter = await Promise.all(PAGE_AGGREGATES.map(activeParts));
    PAGE_AGGREGATES.forEach((table, i) => {
      const kept = (partsBefore[i] ?? []).filter((p) => (partsAfter[i] ?? []).includes(p));
      expect(kept, `${table}: parts not rewritten`).toEqual([]);
    });
    // 50 granules of ones: about 7 blocks of 64 KiB before, about one block per granule after.
    expect(await clickColumnBytes()).toBeGreaterThan(bytesBefore * 2);

    await write('blocks-b', 4);
    const [daily] = await json<{ clicks: string }>(
      `SELECT toString(sum(clicks)) AS clicks FROM campaign_daily WHERE project_id = 'blocks-b'`,
    );
    expect(Number(daily?.clicks)).toBeGreaterThan(0);
    const [platform] = await json<{ clicks: string }>(
      `SELECT toString(sum(clicks)) AS clicks FROM campaign_platform_daily WHERE project_id = 'blocks-b'`,
    );
    expect(platform?.clicks).toBe(daily?.clicks);
  });
});
