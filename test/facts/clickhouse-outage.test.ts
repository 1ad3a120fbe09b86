// ClickHouse faults (catalog F3, F6; invariants I1, I2): with the writer's ClickHouse connection
// down, ingest keeps answering 2xx and facts wait in the Postgres outbox; after recovery each fact
// arrives once. An insert that timed out but landed is not counted twice on its retry, neither in
// the raw table nor in the tables its materialized views feed (clicks → clicks_by_key, clicks_by_ip).
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.ts';
import { flushAllFacts, flushFactBatch } from '../../src/domain/facts/flush-facts.ts';
import { FACT_TABLES } from '../../src/domain/facts/tables.ts';
import { insertFactRows } from '../../src/store/clickhouse/facts.ts';
import { attribute, campaignWithListings, clickLink, init, randomIp } from '../support/client.ts';
import { chCounts, outboxRows, until, whileWriting } from '../support/fact-counts.ts';
import { faultyClickHouse } from '../support/faulty-clickhouse.ts';
import { newProject, testEnv, useHarness } from '../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

async function clicks(n: number) {
  const { deps } = h();
  const p = await newProject(deps);
  const campaign = await campaignWithListings(deps, p);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    ids.push((await clickLink(h(), campaign, { ip: randomIp() })).clickId);
  }
  return { p, campaign, ids };
}

async function clickTables(projectId: string) {
  const { deps } = h();
  return {
    clicks: await chCounts(deps, 'clicks', projectId),
    clicks_by_key: (await chCounts(deps, 'clicks_by_key', projectId)).rows,
    clicks_by_ip: (await chCounts(deps, 'clicks_by_ip', projectId)).rows,
  };
}

describe('ClickHouse down', () => {
  it('when the writer cannot reach ClickHouse, then ingest answers 2xx, facts wait, and after recovery each arrives once', async () => {
    const { deps } = h();
    const { p, campaign } = await clicks(0);
    const faulty = faultyClickHouse(deps.ch);
    faulty.set('down');
    await whileWriting({ ...deps, ch: faulty.client }, { intervalMs: 20, maxBackoffMs: 100 }, async () => {
      for (let i = 0; i < 12; i++) {
        await clickLink(h(), campaign, { ip: randomIp() }); // throws unless 302
      }
      const installs: string[] = [];
      for (let i = 0; i < 5; i++) {
        const iid = randomUUID();
        const res = await init(h(), p.token, { install_instance_id: iid });
        expect(res.statusCode).toBe(202);
        installs.push(iid);
      }
      await until('the writer failed a few times', () => faulty.stats.failed >= 3);

      expect(await outboxRows(deps, p.project.id)).toEqual({ clicks: 12, install_events: 5 });
      expect((await chCounts(deps, 'clicks', p.project.id)).rows).toBe(0);
      const out: string[] = [];
      const code = await runCli(['facts', 'status', '--json'], await testEnv(), {
        out: (s) => out.push(s),
        err: () => {},
      });
      expect(code).toBe(0);
      const status = JSON.parse(out.join(''));
      expect(status.outbox).toEqual(
        expect.arrayContaining([expect.objectContaining({ table: 'clicks', rows: expect.any(Number) })]),
      );
      expect(status.total_rows).toBeGreaterThanOrEqual(17);
      expect(status.over_cap).toBe(false);

      await faulty.heal();
      // Attribution waits for the clicks recorded before an install to reach ClickHouse.
      await until('the clicks arrived', async () => (await outboxRows(deps, p.project.id)).clicks === undefined);
      for (const iid of installs) {
        await attribute(h(), p, iid);
      }
      await until('the outbox drained', async () => Object.keys(await outboxRows(deps, p.project.id)).length === 0);

      expect(await chCounts(deps, 'clicks', p.project.id)).toEqual({ rows: 12, unique: 12 });
      expect(await chCounts(deps, 'install_events', p.project.id)).toEqual({ rows: 5, unique: 5 });
      expect(await chCounts(deps, 'attributions', p.project.id)).toEqual({ rows: 5, unique: 5 });
      expect((await clickTables(p.project.id)).clicks_by_key).toBe(12);
    });
  });

  it('when inserts hang past the deadline, then the batch stays queued and goes in once ClickHouse answers', async () => {
    const { deps } = h();
    const { p } = await clicks(4);
    const faulty = faultyClickHouse(deps.ch);
    faulty.set('hang');
    const fdeps = { ...deps, ch: faulty.client };

    await expect(flushFactBatch(fdeps, 'clicks', { clickhouseTimeoutMs: 100 })).rejects.toThrow(
      'ClickHouse did not answer within 100 ms',
    );
    expect(await outboxRows(deps, p.project.id)).toEqual({ clicks: 4 });
    await faulty.heal();
    await flushAllFacts(fdeps, FACT_TABLES);

    expect(await clickTables(p.project.id)).toEqual({
      clicks: { rows: 4, unique: 4 },
      clicks_by_key: 4,
      clicks_by_ip: 4,
    });
    expect(await outboxRows(deps, p.project.id)).toEqual({});
  });
});

describe('insert timed out but landed', () => {
  it('when the answer is lost after the insert landed, then the retry finds the facts stored and adds nothing', async () => {
    const { deps } = h();
    const { p } = await clicks(8);
    const faulty = faultyClickHouse(deps.ch);
    faulty.set('land-then-timeout', { times: 1 });
    const fdeps = { ...deps, ch: faulty.client };

    await expect(flushFactBatch(fdeps, 'clicks')).rejects.toThrow('Timeout error.');
    expect(await outboxRows(deps, p.project.id)).toEqual({ clicks: 8 });
    const retry = await flushFactBatch(fdeps, 'clicks');

    expect(retry).toMatchObject({ inserted: 0, alreadyStored: 8, deadLettered: 0 });
    expect(await clickTables(p.project.id)).toEqual({
      clicks: { rows: 8, unique: 8 },
      clicks_by_key: 8,
      clicks_by_ip: 8,
    });
    expect(await outboxRows(deps, p.project.id)).toEqual({});
  });

  it('when a timed-out insert lands after its retry did, then the shared token drops it in the table and in every view', async () => {
    const { deps } = h();
    const { p } = await clicks(8);
    const faulty = faultyClickHouse(deps.ch);
    faulty.set('hang-then-land', { times: 1 });
    const fdeps = { ...deps, ch: faulty.client };

    await expect(flushFactBatch(fdeps, 'clicks', { clickhouseTimeoutMs: 100 })).rejects.toThrow(
      'did not answer within 100 ms',
    );
    const retry = await flushFactBatch(fdeps, 'clicks');
    expect(retry).toMatchObject({ inserted: 8, alreadyStored: 0 });
    await faulty.release();

    expect(faulty.stats.landed).toBe(2);
    expect(await clickTables(p.project.id)).toEqual({
      clicks: { rows: 8, unique: 8 },
      clicks_by_key: 8,
      clicks_by_ip: 8,
    });
  });

  it('when one block is inserted three times with its token, then the table and the view targets hold it once', async () => {
    const { deps } = h();
    const { p } = await clicks(3);
    const rows = await deps.sql<{ row: Record<string, unknown> }[]>`
      SELECT row FROM fact_outbox WHERE project_id = ${p.project.id} ORDER BY seq`;
    await deps.sql`DELETE FROM fact_outbox WHERE project_id = ${p.project.id}`;

    for (let i = 0; i < 3; i++) {
      await insertFactRows(
        deps.ch,
        'clicks',
        rows.map((r) => r.row),
        `clicks:test:${p.project.id}`,
      );
    }

    expect(await clickTables(p.project.id)).toEqual({
      clicks: { rows: 3, unique: 3 },
      clicks_by_key: 3,
      clicks_by_ip: 3,
    });
  });
});
