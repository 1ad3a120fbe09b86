// One table whose inserts ClickHouse keeps failing (not as bad data: as an outage of that table
// alone) holds back that table only: the writer backs off from it, keeps its rows, and goes on
// writing the other tables.
import { describe, expect, it } from 'vitest';
import type { Deps } from '../../src/deps.ts';
import type { ClickHouseClient } from '../../src/store/clickhouse/client.ts';
import { campaignWithListings, clickLink, randomIp } from '../support/client.ts';
import { chCounts, outboxRows, until, whileWriting } from '../support/fact-counts.ts';
import * as f from '../support/factories.ts';
import { newProject, useHarness } from '../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

/** The client, with every insert into `table` failing as a refused connection would. */
function failingFor(inner: ClickHouseClient, table: string) {
  const failures = { at: [] as number[] };
  const client = new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'insert') {
        return (params: Parameters<ClickHouseClient['insert']>[0]) => {
          if (params.table !== table) {
            return target.insert(params);
          }
          failures.at.push(Date.now());
          return Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
        };
      }
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { client, failures };
}

/**
 * The writer's own count of failed rounds for `table`, read from its warnings (`failures: n`), with
 * when each warning came: lanes failing in one round share its number, so rounds are told apart by
 * the writer's counter, not by gaps between failures (a slow lane in a busy run looked like a round).
 */
function failedRounds(log: Deps['log'], table: string) {
  const seen: { n: number; at: number }[] = [];
  const recording = new Proxy(log, {
    get(target, prop, receiver) {
      if (prop === 'warn') {
        return (obj: unknown, ...rest: unknown[]) => {
          const o = obj as { table?: string; failures?: number } | undefined;
          if (o?.table === table && typeof o.failures === 'number') {
            seen.push({ n: o.failures, at: Date.now() });
          }
          return (target.warn as (...a: unknown[]) => void)(obj, ...rest);
        };
      }
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  /** Per round number: its first and last failure. */
  const rounds = () => {
    const byRound = new Map<number, { first: number; last: number }>();
    for (const { n, at } of seen) {
      const r = byRound.get(n);
      byRound.set(n, r ? { first: r.first, last: at } : { first: at, last: at });
    }
    return byRound;
  };
  return { log: recording, seen, rounds };
}

describe('fact writer with one failing table', () => {
  it('when every insert into spend fails, then spend is retried less and less often, clicks keep reaching ClickHouse, and the spend row waits in the outbox', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const campaign = await campaignWithListings(deps, p);
    const c = await f.campaign(app, p, {});
    const spend = await app.inject({
      method: 'PUT',
      url: '/api/v1/spend',
      headers: p.headers,
      payload: { rows: [{ day: '2026-11-01', campaign_display_id: c.display_id, amount: 5 }] },
    });
    expect(spend.statusCode).toBe(200);
    const { client, failures } = failingFor(deps.ch, 'spend');
    const spendRounds = failedRounds(deps.log, 'spend');
    // Spend is put off 400 ms after its first failed round, then 800 and 1,600 ms: the fourth round
    // comes 2.8 s after the first and puts spend off for 3.2 s, which must not hold the clicks.
    const writing = { ...deps, ch: client, log: spendRounds.log };
    await whileWriting(writing, { intervalMs: 200, maxBackoffMs: 60_000 }, async () => {
      await until('four failed rounds of spend', () => spendRounds.rounds().has(4), 20_000);
      for (let i = 0; i < 3; i++) {
        await clickLink(h(), campaign, { ip: randomIp() });
      }
      await until(
        'the clicks reached ClickHouse',
        async () => (await chCounts(deps, 'clicks', p.project.id)).rows === 3,
        3000,
      );
    });

    // Every refused insert was counted in a round, the rounds went 1, 2, 3, 4 (not one per lane), and
    // each came no sooner than the backoff the round before it set: 400, 800, then 1,600 ms.
    expect(spendRounds.seen.length).toBe(failures.at.length);
    const rounds = spendRounds.rounds();
    expect([...rounds.keys()].slice(0, 4)).toEqual([1, 2, 3, 4]);
    for (const n of [1, 2, 3]) {
      const gap = (rounds.get(n + 1)?.first ?? 0) - (rounds.get(n)?.last ?? 0);
      expect(gap, `round ${n + 1} came ${gap} ms after round ${n}`).toBeGreaterThanOrEqual(200 * 2 ** n - 5);
    }
    expect(await outboxRows(deps, p.project.id)).toEqual({ spend: 1 });
    expect((await chCounts(deps, 'spend', p.project.id)).rows).toBe(0);
  });
});
