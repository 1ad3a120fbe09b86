// A fact dead-lettered by two writers is replayed into ClickHouse once. Two fact writers can both
// handle one batch: writer A claims it and is slow (its ClickHouse call may run up to CH_TIMEOUT_MS
// = 60 s, longer than STALE_CLAIM_MS = 30 s), so writer B retakes it as stale. When ClickHouse
// refuses a row of that batch, both fall back to row-by-row inserts and both dead-letter it. A
// writer now dead-letters only rows it still held (fact-outbox.ts deadLetter), and a replay sends
// one row per fact and marks its other copies replayed (replay-dead-letters.ts): before, the
// operator's fix and replay put both copies in one retry batch, the "already stored?" check found
// neither, and the fact was written twice (raw table and every view target).
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.ts';
import { flushAllFacts, flushFactBatch } from '../../src/domain/facts/flush-facts.ts';
import type { ClickHouseClient } from '../../src/store/clickhouse/client.ts';
import { insertOutboxRows } from '../../src/store/postgres/fact-outbox.ts';
import { campaignWithListings, clickLink, randomIp } from '../support/client.ts';
import { chCounts } from '../support/fact-counts.ts';
import { newProject, testEnv, useHarness } from '../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

/** A client whose first insert waits at a gate (a writer paused past the stale-claim age). */
function gatedClickHouse(inner: ClickHouseClient) {
  let open!: () => void;
  const gate = new Promise<void>((r) => {
    open = r;
  });
  let entered!: () => void;
  const held = new Promise<void>((r) => {
    entered = r;
  });
  let first = true;
  const client = new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'insert') {
        return async (params: Parameters<ClickHouseClient['insert']>[0]) => {
          if (first) {
            first = false;
            entered();
            await gate;
          }
          return target.insert(params);
        };
      }
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { client, held, open };
}

it('when two writers both dead-lettered one refused fact and the operator fixes and replays it, then ClickHouse holds it once', async () => {
  const { deps } = h();
  const p = await newProject(deps);
  const campaign = await campaignWithListings(deps, p);
  for (let i = 0; i < 3; i++) {
    await clickLink(h(), campaign, { ip: randomIp() });
  }
  const [template] = await deps.sql<{ row: Record<string, unknown> }[]>`
    SELECT row FROM fact_outbox WHERE project_id = ${p.project.id} AND fact_table = 'clicks' ORDER BY seq LIMIT 1`;
  const badId = `bad_${randomUUID()}`;
  await insertOutboxRows(deps.sql, [
    {
      table: 'clicks',
      factId: badId,
      projectId: p.project.id,
      row: { ...template?.row, click_id: badId, campaign_id: 'not-a-number' },
    },
  ]);
  // Writer A claims the batch and stalls in its insert; writer B retakes it as stale (the 30 s
  // stale age passed, here 0) and finishes it; then A resumes.
  const gated = gatedClickHouse(deps.ch);
  const writerA = flushFactBatch({ ...deps, ch: gated.client }, 'clicks');
  await gated.held;
  await flushFactBatch(deps, 'clicks', { staleClaimMs: 0 });
  gated.open();
  await writerA;
  // The operator fixes the refused row, as README says ("fix fact_dead_letters.row in SQL first").
  await deps.sql`UPDATE fact_dead_letters SET row = jsonb_set(row, '{campaign_id}', to_jsonb(${campaign.id}::int))
    WHERE fact_id = ${badId}`;

  const out: string[] = [];
  const code = await runCli(['facts', 'replay-dead-letters', '--table', 'clicks', '--json'], await testEnv(), {
    out: (s) => out.push(s),
    err: (s) => out.push(s),
  });
  expect(code, out.join('\n')).toBe(0);
  await flushAllFacts(deps, ['clicks']);

  // README (CLI table, facts replay-dead-letters): "A fact ClickHouse already holds is skipped, so
  // a replay never counts twice"; HELP: "send pending dead letters ... back to ClickHouse; never
  // counted twice". Three good clicks plus the fixed one: four rows, four distinct click ids.
  expect(await chCounts(deps, 'clicks', p.project.id)).toEqual({ rows: 4, unique: 4 });
  expect((await chCounts(deps, 'clicks_by_key', p.project.id)).rows).toBe(4);
}, 60_000);
