// Candidate clicks split at the install (store/clickhouse/clicks.ts): each lookup keeps the newest
// 200 clicks at or before its install and at most 10 after it, so a busy IP's clicks after the
// install (which can never win) no longer push out the install's own. Lookups of one IP in one
// batch share a span cut at each install's instant; each still answers what it would alone.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { findClicksByIps, findClicksByKeys } from '../../src/store/clickhouse/clicks.ts';
import type { ClickHouseClient } from '../../src/store/clickhouse/client.ts';
import { migratedTestClickHouse } from '../support/harness.ts';

let ch: ClickHouseClient;
beforeAll(async () => {
  ch = await migratedTestClickHouse();
});

// Yesterday 12:00 UTC: in the past (lookups clip windows to now), within the lookup tables' TTL.
const NOW = Math.floor(Date.now() / 86_400_000) * 86_400_000 - 12 * 3_600_000;
const STEP = 10_000;

/** `n` clicks STEP apart ending at NOW (ck0000 the newest), one IP and ad id. */
async function clicks(projectId: string, n: number): Promise<void> {
  await ch.command({
    query: `INSERT INTO clicks (project_id, campaign_id, click_id, ts, ip, ad_id)
      SELECT {p:String}, 7, concat('ck', leftPad(toString(number), 4, '0')),
        fromUnixTimestamp64Milli({now:Int64}) - toIntervalMillisecond(number * {step:UInt32}), '10.7.7.7', 'gaid-7'
      FROM numbers({n:UInt32})`,
    query_params: { p: projectId, now: NOW, n, step: STEP },
    clickhouse_settings: { insert_deduplication_token: `split-${projectId}` },
  });
}

/** Click ids ck<from> … ck<from + n - 1>, newest first. */
const ids = (from: number, n: number) => Array.from({ length: n }, (_, i) => `ck${String(from + i).padStart(4, '0')}`);

describe('candidate clicks split at the install', () => {
  it('when 300 clicks reach the IP after the install, then the lookup keeps 10 of them and the newest 200 before it', async () => {
    const p = randomUUID();
    await clicks(p, 600);
    const atMs = NOW - 300 * STEP; // ck0300 is the install's own instant
    const w = { fromMs: NOW - 700 * STEP, atMs, toMs: NOW + 3_600_000 };

    const [byIp = []] = await findClicksByIps(ch, p, [{ value: '10.7.7.7', ...w }]);
    const [byKey = []] = await findClicksByKeys(ch, p, [{ value: 'a:gaid-7', ...w }]);

    expect(byIp.map((c) => c.clickId)).toEqual([...ids(0, 10), ...ids(300, 200)]);
    expect(byKey.map((c) => c.clickId)).toEqual(byIp.map((c) => c.clickId));
  });

  it('when several installs behind one IP share a statement, then each answers what it would alone', async () => {
    const p = randomUUID();
    await clicks(p, 600);
    const to = NOW + 3_600_000;
    const lookups = [
      { value: '10.7.7.7', fromMs: NOW - 700 * STEP, atMs: NOW - 50 * STEP, toMs: to },
      { value: '10.7.7.7', fromMs: NOW - 700 * STEP, atMs: NOW - 120 * STEP, toMs: to },
      { value: '10.7.7.7', fromMs: NOW - 330 * STEP, atMs: NOW - 300 * STEP, toMs: NOW - 250 * STEP },
      { value: '10.7.7.7', fromMs: NOW - 700 * STEP, atMs: NOW - 590 * STEP, toMs: to },
    ];

    const together = await findClicksByIps(ch, p, lookups);
    const alone = await Promise.all(lookups.map(async (l) => (await findClicksByIps(ch, p, [l]))[0]));

    const upTo = (list: { clickId: string; ts: number }[] | undefined, atMs: number) =>
      (list ?? []).filter((c) => c.ts <= atMs).map((c) => c.clickId);
    // At or before each install: its newest 200 (in its window), alone or together.
    expect(lookups.map((l, i) => upTo(together[i], l.atMs))).toEqual([
      ids(50, 200),
      ids(120, 200),
      ids(300, 31),
      ids(590, 10),
    ]);
    expect(lookups.map((l, i) => upTo(together[i], l.atMs))).toEqual(lookups.map((l, i) => upTo(alone[i], l.atMs)));
    // After each install: at most 10, all after it and inside its window.
    together.forEach((list, i) => {
      const l = lookups[i] as (typeof lookups)[number];
      const after = (list ?? []).filter((c) => c.ts > l.atMs);
      expect(after.length).toBeLessThanOrEqual(10);
      expect(after.every((c) => c.ts <= l.toMs)).toBe(true);
    });
    expect((alone[2] ?? []).filter((c) => c.ts > (lookups[2]?.atMs ?? 0)).map((c) => c.clickId)).toEqual(ids(250, 10));
  });
});
