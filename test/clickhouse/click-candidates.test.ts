// Candidate clicks for attribution (store/clickhouse/clicks.ts): the newest 200 clicks of an IP or
// match key inside the window, each once, newest first, with their details from `clicks`. The
// lookup goes through clicks_by_ip / clicks_by_key and reads `clicks` by its sorting key.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatChTime } from '../../src/lib/time.ts';
import { findClicksByIps, findClicksByKeys } from '../../src/store/clickhouse/clicks.ts';
import type { ClickHouseClient } from '../../src/store/clickhouse/client.ts';
import { migratedTestClickHouse } from '../support/harness.ts';

let ch: ClickHouseClient;
beforeAll(async () => {
  ch = await migratedTestClickHouse();
});

// Yesterday 12:00 UTC: in the past (lookups clip windows to now), and recent enough that the
// lookup tables' TTL (clicks_by_ip: 30 days, dropped by whole weeks) never removes the clicks.
const NOW = Math.floor(Date.now() / 86_400_000) * 86_400_000 - 12 * 3_600_000;

/** `n` clicks one second apart ending at NOW, over two days (so toDate(ts) differs), one IP and ad id. */
async function clicks(projectId: string, n: number): Promise<void> {
  await ch.command({
    query: `INSERT INTO clicks (project_id, campaign_id, click_id, ts, ip, ad_id)
      SELECT {p:String}, 7 + number % 2, concat('ck', leftPad(toString(number), 4, '0')),
        fromUnixTimestamp64Milli({now:Int64}) - toIntervalSecond(number * 200), '10.9.9.9', 'gaid-1'
      FROM numbers({n:UInt32})`,
    query_params: { p: projectId, now: NOW, n },
    // Two such inserts differ only in a bound parameter; without a token of its own the engine
    // takes the second for a repeat of the first and drops it.
    clickhouse_settings: { insert_deduplication_token: `candidates-${projectId}` },
  });
}

describe('candidate clicks', () => {
  it('when 250 clicks share an IP and an ad id over two days, then each lookup answers the newest 200, newest first', async () => {
    const p = randomUUID();
    await clicks(p, 250);
    const w = { fromMs: NOW - 3 * 86_400_000, toMs: NOW + 3_600_000 };

    const [byIp = []] = await findClicksByIps(ch, p, [{ value: '10.9.9.9', ...w }]);
    const [byKey = []] = await findClicksByKeys(ch, p, [{ value: 'a:gaid-1', ...w }]);

    const newest = Array.from({ length: 200 }, (_, i) => `ck${String(i).padStart(4, '0')}`);
    expect(byIp.map((c) => c.clickId)).toEqual(newest);
    expect(byKey.map((c) => c.clickId)).toEqual(newest);
    expect(byIp[0]).toMatchObject({ ts: NOW, campaignId: 7 });
    expect(byIp[199]).toMatchObject({ ts: NOW - 199 * 200_000, campaignId: 8 });
  });

  it('when clicks fall outside the window or belong to another project, then they are not candidates', async () => {
    const p = randomUUID();
    await clicks(p, 10);
    await clicks(randomUUID(), 10);

    const [found = []] = await findClicksByIps(ch, p, [{ value: '10.9.9.9', fromMs: NOW - 1_000_000, toMs: NOW }]);

    expect(found.map((c) => c.clickId)).toEqual(['ck0000', 'ck0001', 'ck0002', 'ck0003', 'ck0004', 'ck0005']);
  });

  it('when one statement serves several lookups with different windows, then each answers what it would alone', async () => {
    const p = randomUUID();
    await clicks(p, 250);
    const from = NOW - 3 * 86_400_000;
    const earlier = NOW - 30 * 200_000;

    const [late = [], early = []] = await findClicksByIps(ch, p, [
      { value: '10.9.9.9', fromMs: from, toMs: NOW },
      { value: '10.9.9.9', fromMs: from, toMs: earlier },
    ]);
    const [byAdId = [], byClickId = [], unknown = []] = await findClicksByKeys(ch, p, [
      { value: 'a:gaid-1', fromMs: from, toMs: earlier },
      { value: 'c:ck0005', fromMs: from, toMs: NOW },
      { value: 'c:ck9999', fromMs: from, toMs: NOW },
    ]);

    const ids = (first: number) => Array.from({ length: 200 }, (_, i) => `ck${String(first + i).padStart(4, '0')}`);
    // The earlier window's newest 200 reach past the later window's 200 (ck0200 … ck0229).
    expect(late.map((c) => c.clickId)).toEqual(ids(0));
    expect(early.map((c) => c.clickId)).toEqual(ids(30));
    expect(byAdId.map((c) => c.clickId)).toEqual(ids(30));
    expect(byClickId.map((c) => c.clickId)).toEqual(['ck0005']);
    expect(unknown).toEqual([]);
    const [alone] = await findClicksByIps(ch, p, [{ value: '10.9.9.9', fromMs: from, toMs: earlier }]);
    expect(early).toEqual(alone);
  });

  it('when clicks are stored, then a c: row of clicks_by_key leaves click_id empty and lookups by either key still find the click (migration 0022)', async () => {
    const p = randomUUID();
    await clicks(p, 3);

    const rows = await (
      await ch.query({
        query: `SELECT match_key, click_id FROM clicks_by_key WHERE project_id = {p:String} ORDER BY match_key, click_id`,
        format: 'JSONEachRow',
        query_params: { p },
      })
    ).json<{ match_key: string; click_id: string }>();
    expect(rows).toEqual([
      { match_key: 'a:gaid-1', click_id: 'ck0000' },
      { match_key: 'a:gaid-1', click_id: 'ck0001' },
      { match_key: 'a:gaid-1', click_id: 'ck0002' },
      { match_key: 'c:ck0000', click_id: '' },
      { match_key: 'c:ck0001', click_id: '' },
      { match_key: 'c:ck0002', click_id: '' },
    ]);
    const w = { fromMs: NOW - 86_400_000, toMs: NOW };
    const [byClickId = [], byAdId = []] = await findClicksByKeys(ch, p, [
      { value: 'c:ck0001', ...w },
      { value: 'a:gaid-1', ...w },
    ]);
    expect(byClickId.map((c) => [c.clickId, c.campaignId, c.ip])).toEqual([['ck0001', 8, '10.9.9.9']]);
    expect(byAdId.map((c) => c.clickId)).toEqual(['ck0000', 'ck0001', 'ck0002']);
  });

  it('when a c: row was written before migration 0022 (click_id repeated), then the lookup still finds its click', async () => {
    const p = randomUUID();
    await clicks(p, 2);
    await ch.command({
      query: `ALTER TABLE clicks_by_key DELETE WHERE project_id = {p:String}`,
      query_params: { p },
      clickhouse_settings: { mutations_sync: '2' },
    });
    await ch.insert({
      table: 'clicks_by_key',
      values: [
        {
          project_id: p,
          match_key: 'c:ck0001',
          ts: formatChTime(NOW - 200_000),
          click_id: 'ck0001',
          campaign_id: 8,
        },
      ],
      format: 'JSONEachRow',
      clickhouse_settings: { insert_deduplication_token: `old-shape-${p}` },
    });

    const [found = [], gone = []] = await findClicksByKeys(ch, p, [
      { value: 'c:ck0001', fromMs: NOW - 86_400_000, toMs: NOW },
      { value: 'c:ck0000', fromMs: NOW - 86_400_000, toMs: NOW },
    ]);

    expect(found.map((c) => [c.clickId, c.ts])).toEqual([['ck0001', NOW - 200_000]]);
    expect(gone).toEqual([]);
  });

  it('when many lookups share an IP and a window end, then each still answers its own window', async () => {
    const p = randomUUID();
    await clicks(p, 250);
    const to = Date.now() + 3_600_000;
    const froms = [NOW - 3 * 86_400_000, NOW - 99 * 200_000, NOW - 230 * 200_000, NOW + 1];

    const found = await findClicksByIps(
      ch,
      p,
      froms.map((fromMs) => ({ value: '10.9.9.9', fromMs, toMs: to })),
    );

    const ids = (n: number) => Array.from({ length: n }, (_, i) => `ck${String(i).padStart(4, '0')}`);
    expect(found.map((list) => list.map((c) => c.clickId))).toEqual([ids(200), ids(100), ids(200), []]);
  });
});
