// The fact writer when the outbox has little or nothing due: drained tables are looked at together,
// in one statement a round, instead of a claim per table (each claim opens a transaction and draws
// a batch id from fact_batch_seq). What is appended or left behind is still moved.
import { beforeEach, describe, expect, it } from 'vitest';
import { flushAllFacts } from '../../src/domain/facts/flush-facts.ts';
import { FACT_TABLES } from '../../src/domain/facts/tables.ts';
import { claimRows } from '../../src/store/postgres/fact-outbox.ts';
import { campaignWithListings, clickLink, randomIp } from '../support/client.ts';
import { chCounts, outboxRows, until, whileWriting } from '../support/fact-counts.ts';
import { newProject, useHarness } from '../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

async function batchIdsDrawn(): Promise<number> {
  const [row] = await h().deps.sql<{ n: string }[]>`SELECT last_value::text AS n FROM fact_batch_seq`;
  return Number(row?.n);
}

describe('fact writer with nothing due', () => {
  beforeEach(async () => {
    await flushAllFacts(h().deps, FACT_TABLES);
  });

  it('when the outbox holds nothing, then the writer keeps looking without claiming batches', async () => {
    const before = await batchIdsDrawn();
    // About 20 rounds over the 8 tables: one claim per table and round drew about 150 ids.
    await whileWriting(h().deps, { intervalMs: 20 }, () => new Promise((resolve) => setTimeout(resolve, 400)));

    expect(await batchIdsDrawn()).toBe(before);
  });

  it('when clicks arrive while the writer idles, then they reach ClickHouse and leave the outbox', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const campaign = await campaignWithListings(deps, p);
    await whileWriting(h().deps, { intervalMs: 20 }, async () => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      for (let i = 0; i < 3; i++) {
        await clickLink(h(), campaign, { ip: randomIp() });
      }
      await until(
        'the clicks reached ClickHouse',
        async () => (await chCounts(deps, 'clicks', p.project.id)).rows === 3,
      );
    });

    expect(await outboxRows(deps, p.project.id)).toEqual({});
    expect((await chCounts(deps, 'clicks', p.project.id)).rows).toBe(3);
  });

  it('when a writer starts with rows waiting, then it moves them without waiting a round', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const campaign = await campaignWithListings(deps, p);
    for (let i = 0; i < 3; i++) {
      await clickLink(h(), campaign, { ip: randomIp() });
    }
    // A round of a minute: the rows a stopped process left must not wait for it (the writer made
    // every table due one interval after its start).
    await whileWriting(h().deps, { intervalMs: 60_000 }, () =>
      until(
        'the waiting clicks reached ClickHouse',
        async () => (await chCounts(deps, 'clicks', p.project.id)).rows === 3,
        10_000,
      ),
    );

    expect(await outboxRows(deps, p.project.id)).toEqual({});
  });

  it('when a batch was claimed by a writer that vanished, then an idle writer retakes it once it is stale', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const campaign = await campaignWithListings(deps, p);
    await clickLink(h(), campaign, { ip: randomIp() });
    const abandoned = await claimRows(deps.sql, 'clicks', 100);
    expect(abandoned).toBeDefined();
    await whileWriting(h().deps, { intervalMs: 20, staleClaimMs: 300 }, () =>
      until(
        'the abandoned batch reached ClickHouse',
        async () => (await chCounts(deps, 'clicks', p.project.id)).rows === 1,
      ),
    );

    expect(await outboxRows(deps, p.project.id)).toEqual({});
  });
});
