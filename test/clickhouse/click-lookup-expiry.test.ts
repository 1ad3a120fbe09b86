// ClickHouse migration 0023: clicks_by_key (120 days) and clicks_by_ip (30 days) are partitioned by
// week and expire by dropping whole parts (ttl_only_drop_parts), instead of rewriting the table to
// delete the rows that just expired. A part that still holds a live click is kept whole; lookups
// bound their own windows (click-candidates.test.ts), so its expired clicks are never candidates. Re-running the
// migration (its steps are written to be re-run after a crash) keeps the live clicks and the views.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatChTime } from '../../src/lib/time.ts';
import { findClicksByIps, findClicksByKeys } from '../../src/store/clickhouse/clicks.ts';
import type { ClickHouseClient } from '../../src/store/clickhouse/client.ts';
import { rerunChMigration } from '../support/ch-migrations.ts';
import { chJson, migratedTestClickHouse } from '../support/harness.ts';

let ch: ClickHouseClient;
beforeAll(async () => {
  ch = await migratedTestClickHouse();
});

const DAY = 86_400_000;
const MINUTE = 60_000;

const json = <T>(query: string, params: Record<string, unknown> = {}) => chJson<T>(ch, query, params);

/** Start of the UTC week (Monday 00:00) holding ms, as toMonday(ts) partitions it. */
function mondayOf(ms: number): number {
  const day = Math.floor(ms / DAY) * DAY;
  const weekday = (new Date(day).getUTCDay() + 6) % 7; // Monday 0
  return day - weekday * DAY;
}

const TABLES = [
  { table: 'clicks_by_key', column: 'match_key', ttlDays: 120 },
  { table: 'clicks_by_ip', column: 'ip', ttlDays: 30 },
] as const;

describe('click lookup tables expire by whole weeks (clickhouse migration 0023)', () => {
  it('when their TTL is applied, then a wholly expired week is dropped and a week with a live click is kept whole', async () => {
    let partial = 0;
    for (const { table, column, ttlDays } of TABLES) {
      const p = randomUUID();
      const cutoff = Date.now() - ttlDays * DAY;
      const old = cutoff - 100 * DAY;
      // An expired and a live click in the week of the cutoff, written in one insert (one part).
      // The live one has 10 minutes of margin; when the cutoff's week ends sooner than that, only the
      // wholly expired week is checked for this table (the other table's cutoff is 6 days away).
      const live = cutoff + 10 * MINUTE;
      const sameWeek = mondayOf(live) === mondayOf(cutoff) && mondayOf(cutoff) < cutoff - MINUTE;
      const expired = sameWeek ? mondayOf(cutoff) : old + MINUTE;
      const times = [old, expired, live];
      await ch.insert({
        table,
        values: times.map((ms, i) => ({ project_id: p, [column]: `k${i}`, ts: formatChTime(ms), click_id: `ck${i}` })),
        format: 'JSONEachRow',
        clickhouse_settings: { insert_deduplication_token: `expiry-${p}` },
      });

      await ch.command({ query: `ALTER TABLE ${table} MATERIALIZE TTL SETTINGS mutations_sync = 2` });

      const left = await json<{ k: string }>(`SELECT ${column} AS k FROM ${table} WHERE project_id = {p:String}`, {
        p,
      });
      const keys = left.map((r) => r.k).sort();
      if (sameWeek) {
        partial++;
        expect(keys, table).toEqual(['k1', 'k2']); // k1 has expired, but its week still holds k2
      } else {
        expect(keys, table).toEqual(['k2']);
      }
      const [layout] = await json<{ engine_full: string }>(
        `SELECT engine_full FROM system.tables WHERE database = currentDatabase() AND name = {t:String}`,
        { t: table },
      );
      expect(layout?.engine_full).toContain('PARTITION BY toMonday(ts)');
      expect(layout?.engine_full).toContain('ttl_only_drop_parts = 1');
    }
    expect(partial).toBeGreaterThan(0);
  });

  it('when the migration runs again over stored clicks, then live clicks are still found and the views feed the new tables', async () => {
    const p = randomUUID();
    const insertClick = (id: string, ms: number, token: string) =>
      ch.command({
        query: `INSERT INTO clicks (project_id, campaign_id, click_id, ts, ip, ad_id)
          VALUES ({p:String}, 5, {id:String}, fromUnixTimestamp64Milli({ts:Int64}), '10.8.8.8', 'gaid-0023')`,
        query_params: { p, id, ts: ms },
        clickhouse_settings: { insert_deduplication_token: token },
      });
    const now = Date.now();
    await insertClick('ck-before', now - 2 * DAY, `rerun-before-${p}`);

    await rerunChMigration(ch, '0023_click_lookups_drop_expired_weeks.sql');
    await insertClick('ck-after', now - DAY, `rerun-after-${p}`);

    const w = { fromMs: now - 10 * DAY, toMs: now + MINUTE };
    const [byIp = []] = await findClicksByIps(ch, p, [{ value: '10.8.8.8', ...w }]);
    const [byAd = []] = await findClicksByKeys(ch, p, [{ value: 'a:gaid-0023', ...w }]);
    const [byId = []] = await findClicksByKeys(ch, p, [{ value: 'c:ck-before', ...w }]);
    expect(byIp.map((c) => c.clickId)).toEqual(['ck-after', 'ck-before']);
    expect(byAd.map((c) => c.clickId)).toEqual(['ck-after', 'ck-before']);
    expect(byId.map((c) => c.clickId)).toEqual(['ck-before']);
    const [left] = await json<{ n: string }>(
      `SELECT toString(count()) AS n FROM system.tables WHERE database = currentDatabase() AND name LIKE 'clicks_by_%_rebuild'`,
    );
    expect(left?.n).toBe('0');
  });
});
