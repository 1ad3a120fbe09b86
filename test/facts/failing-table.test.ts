// One table whose inserts ClickHouse keeps failing (not as bad data: as an outage of that table
// alone) holds back that table only: the writer backs off from it, keeps its rows, and goes on
// writing the other tables.
import { describe, expect, it } from 'vitest';
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

/** Retry rounds: failures closer than 50 ms to the one before are the other lane's, same round. */
const rounds = (at: number[]) => at.filter((t, i) => i === 0 || t - (at[i - 1] ?? 0) > 50);

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
    // Spend is put off 400 ms after its first failed round, then 800 and 1,600 ms: the fourth round
    // comes 2.8 s after the first and puts spend off for 3.2 s, which must not hold the clicks.
    await whileWriting({ ...deps, ch: client }, { intervalMs: 200, maxBackoffMs: 60_000 }, async () => {
      await until('four failed rounds of spend', () => rounds(failures.at).length >= 4, 20_000);
      for (let i = 0; i < 3; i++) {
        await clickLink(h(), campaign, { ip: randomIp() });
      }
      await until(
        'the clicks reached ClickHouse',
        async () => (await chCounts(deps, 'clicks', p.project.id)).rows === 3,
        3000,
      );
    });

    const [first, , , fourth] = rounds(failures.at);
    expect((fourth ?? 0) - (first ?? 0)).toBeGreaterThanOrEqual(2_600);
    expect(await outboxRows(deps, p.project.id)).toEqual({ spend: 1 });
    expect((await chCounts(deps, 'spend', p.project.id)).rows).toBe(0);
  });
});
