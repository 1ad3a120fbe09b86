// Bounded buffering (catalog I3, F4): once more facts wait for ClickHouse than FACT_BACKLOG_MAX_ROWS,
// client ingest answers 503 + Retry-After before writing anything, reads keep working, and the
// facts accepted before the cap still arrive. Its own file: the cap counts every row of the
// process's database, so no other test may add rows meanwhile.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { flushAllFacts } from '../../src/domain/facts/flush-facts.ts';
import { FACT_TABLES } from '../../src/domain/facts/tables.ts';
import { insertOutboxRows, outboxExceeds } from '../../src/store/postgres/fact-outbox.ts';
import { attribute, attributionData, init, installRows, post } from '../support/client.ts';
import { chCounts, outboxRows } from '../support/fact-counts.ts';
import { newProject, useHarness } from '../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false', FACT_BACKLOG_MAX_ROWS: '3' } });

const BACKLOG_FULL = { msg: 'Too much data is waiting to be stored. Please retry later.', status: 503 };
/** The cap's row count is at most a second old. */
const staleness = () => new Promise((r) => setTimeout(r, 1100));

describe('503', () => {
  it('when more facts wait than the cap, then ingest answers 503 with Retry-After, reads work, and the earlier facts arrive', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const accepted: string[] = [];
    for (let i = 0; i < 4; i++) {
      const iid = randomUUID();
      expect((await init(h(), p.token, { install_instance_id: iid })).statusCode).toBe(202);
      accepted.push(iid);
    }
    expect(await outboxRows(deps, p.project.id)).toEqual({ install_events: 4 });
    await staleness();

    const refusedId = randomUUID();
    const refused = await init(h(), p.token, { install_instance_id: refusedId });
    const deeplink = await post(h(), 'handle-deeplink', {
      token: p.token,
      platform: 'ANDROID',
      install_instance_id: accepted[0],
      deeplink_url: 'https://attr.test/x',
    });
    const read = await attributionData(h(), p.token, accepted[0] as string);

    expect(refused.statusCode).toBe(503);
    expect(refused.json()).toEqual(BACKLOG_FULL);
    expect(refused.headers['retry-after']).toBe('30');
    expect(deeplink.statusCode).toBe(503);
    expect(deeplink.json()).toEqual(BACKLOG_FULL);
    expect(read.statusCode).toBe(200);
    expect((await installRows(deps, p)).map((r) => r.install_instance_id).sort()).toEqual([...accepted].sort());
    expect(await outboxRows(deps, p.project.id)).toEqual({ install_events: 4 });

    for (const iid of accepted) {
      await attribute(h(), p, iid);
    }
    await flushAllFacts(deps, FACT_TABLES);
    await staleness();
    const after = await init(h(), p.token, { install_instance_id: refusedId });

    expect(await chCounts(deps, 'install_events', p.project.id)).toEqual({ rows: 4, unique: 4 });
    expect(await chCounts(deps, 'attributions', p.project.id)).toEqual({ rows: 4, unique: 4 });
    expect(after.statusCode).toBe(202);
  });
});

describe('the row estimate', () => {
  it('when the outbox sequence has gaps wider than the cap, then only the rows present count', async () => {
    const { deps } = h();
    const projectId = randomUUID();
    const rows = Array.from({ length: 6 }, (_, i) => ({ table: 'estimate-test', factId: `f${i}`, projectId, row: {} }));
    await insertOutboxRows(deps.sql, rows);
    try {
      const full = await outboxExceeds(deps.sql, 3);
      await deps.sql`DELETE FROM fact_outbox WHERE project_id = ${projectId} AND fact_id IN ('f1', 'f2', 'f3', 'f4')`;
      const gapped = await outboxExceeds(deps.sql, 3);

      expect([full, gapped]).toEqual([true, false]);
    } finally {
      await deps.sql`DELETE FROM fact_outbox WHERE project_id = ${projectId}`;
    }
  });
});
