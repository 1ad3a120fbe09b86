// Postgres faults in the fact writer (catalog F2): a batch whose flush failed while Postgres was
// away could not be marked for retry then, and stayed claimed until its claim went stale (30 s),
// which was most of F2's drain. The writer now remembers such a batch and marks it as soon as
// Postgres answers, so the next flush retries it at once; each fact still lands once.
import { describe, expect, it } from 'vitest';
import { flushFactBatch } from '../../src/domain/facts/flush-facts.ts';
import { createPool } from '../../src/store/postgres/pool.ts';
import { campaignWithListings, clickLink, randomIp } from '../support/client.ts';
import { chCounts, outboxRows } from '../support/fact-counts.ts';
import { faultyClickHouse } from '../support/faulty-clickhouse.ts';
import { newProject, processDatabaseUrl, useHarness } from '../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

describe('Postgres lost between the ClickHouse insert and the outbox delete', () => {
  it('when Postgres is back, then the next flush retries the batch at once and each fact lands once', async () => {
    // Arrange: 4 clicks waiting; the writer's Postgres handle goes away as soon as ClickHouse took them
    const { deps } = h();
    const p = await newProject(deps);
    const campaign = await campaignWithListings(deps, p);
    for (let i = 0; i < 4; i++) {
      await clickLink(h(), campaign, { ip: randomIp() });
    }
    const writerSql = createPool(await processDatabaseUrl(), 2);
    const faulty = faultyClickHouse(deps.ch, { onLanded: () => void writerSql.end({ timeout: 0 }) });
    const unreleased = new Set<string>();

    // Act: the flush fails after its insert (neither the delete nor the retry mark reach Postgres),
    // then a flush with Postgres answering
    const failed = flushFactBatch({ ...deps, sql: writerSql, ch: faulty.client }, 'clicks', { unreleased });
    await expect(failed).rejects.toThrow();
    const remembered = unreleased.size;
    const retry = await flushFactBatch(deps, 'clicks', { unreleased });

    // Assert
    expect(remembered).toBe(1);
    expect(retry).toMatchObject({ inserted: 0, alreadyStored: 4, deadLettered: 0 });
    expect(unreleased.size).toBe(0);
    expect(await outboxRows(deps, p.project.id)).toEqual({});
    expect(await chCounts(deps, 'clicks', p.project.id)).toEqual({ rows: 4, unique: 4 });
  });
});
