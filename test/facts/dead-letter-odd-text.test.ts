// Dead-lettering never fails on a row's text (fact-outbox.ts deadLetter). The outbox keeps a row's
// JSON as written (json), so a lone surrogate escape ("\ud800") or \u0000 reaches the writer;
// ClickHouse refuses the lone surrogate, and the dead-letter table's jsonb refused both, which
// rolled the dead-lettering back: the batch stayed claimed, was retaken first on every pass, and
// that table's later facts of every project waited behind it. Such text is stored as storable()
// makes it (U+FFFD, NUL dropped), and the replayed row then lands.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { flushAllFacts, flushFactBatch } from '../../src/domain/facts/flush-facts.ts';
import { replayDeadLetters } from '../../src/domain/facts/replay-dead-letters.ts';
import { spendFactRow } from '../../src/domain/spend/spend-fact.ts';
import { insertOutboxRows, type OutboxRow } from '../../src/store/postgres/fact-outbox.ts';
import { chCounts, outboxRows } from '../support/fact-counts.ts';
import * as f from '../support/factories.ts';
import { newProject, type TestProject, useHarness } from '../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

/** A spend fact of a new campaign of `p`, with `text` as its ad set id, written to the outbox as is. */
async function spendFact(p: TestProject, text: Partial<Record<'adSetId' | 'adSetName', string>>, campaignId?: unknown) {
  const c = await f.campaign(h().app, p, {});
  const factId = `sp_${randomUUID()}`;
  const values = {
    day: '2025-07-01',
    campaignId: c.id,
    displayId: c.display_id,
    adSetId: 'as1',
    adSetName: '',
    creativeId: '',
    creativeName: '',
    keywordId: '',
    keywordName: '',
    network: 'META',
    amount: '4',
    impressions: 0,
    clicks: 0,
    ...text,
  };
  const row = spendFactRow(p.project.id, factId, values, 1, Date.now());
  const fact: OutboxRow = {
    table: 'spend',
    factId,
    projectId: p.project.id,
    row: campaignId === undefined ? row : { ...row, campaign_id: campaignId },
  };
  await insertOutboxRows(h().deps.sql, [fact]);
  return factId;
}

type DeadRow = { id: string; row: Record<string, unknown>; reason: string };
function deadLetters(p: TestProject): Promise<DeadRow[]> {
  return h().deps.sql<DeadRow[]>`
    SELECT id::text, row, reason FROM fact_dead_letters WHERE project_id = ${p.project.id} ORDER BY id`;
}

describe('dead letters of odd text', () => {
  it('when ClickHouse refuses a row whose JSON holds a lone surrogate escape, then it is dead-lettered as U+FFFD, its batch moves on, and a replay lands it', async () => {
    const { deps } = h();
    const bad = await newProject(deps);
    const good = await newProject(deps);
    const badId = await spendFact(bad, { adSetId: '\ud800x', adSetName: 'name \udfff' });
    const [stored] = await deps.sql<{ json: string }[]>`
      SELECT row::text AS json FROM fact_outbox WHERE fact_id = ${badId}`;
    expect(stored?.json).toContain('"\\ud800x"');

    const first = await flushFactBatch(deps, 'spend', { staleClaimMs: 0 });
    await spendFact(good, {});
    await flushAllFacts(deps, ['spend']);

    expect(first.deadLettered).toBeGreaterThanOrEqual(1);
    expect(await outboxRows(deps, bad.project.id)).toEqual({});
    const [dead, ...more] = await deadLetters(bad);
    expect(more).toEqual([]);
    expect(dead?.row).toMatchObject({ event_id: badId, ad_set_id: '\ufffdx', ad_set_name: 'name \ufffd' });
    expect(dead?.reason).not.toBe('');
    expect(await outboxRows(deps, good.project.id)).toEqual({});
    expect((await chCounts(deps, 'spend', good.project.id)).rows).toBe(1);
    const [stuck] = await deps.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM fact_batches WHERE fact_table = 'spend'`;
    expect(stuck?.n).toBe(0);

    await replayDeadLetters(deps, { table: 'spend' });
    await flushAllFacts(deps, ['spend']);
    const rs = await deps.ch.query({
      query: 'SELECT ad_set_id, ad_set_name FROM spend WHERE project_id = {p:String}',
      format: 'JSONEachRow',
      query_params: { p: bad.project.id },
    });
    expect(await rs.json()).toEqual([{ ad_set_id: '\ufffdx', ad_set_name: 'name \ufffd' }]);
  });

  it('when ClickHouse refuses a row for a bad number and the row holds a \\u0000 escape, then it is dead-lettered without the NUL', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const factId = await spendFact(p, { adSetId: 'a\u0000b' }, 'not-a-number');

    await flushAllFacts(deps, ['spend']);

    expect(await outboxRows(deps, p.project.id)).toEqual({});
    const dead = await deadLetters(p);
    expect(dead).toEqual([
      expect.objectContaining({ row: expect.objectContaining({ event_id: factId, ad_set_id: 'ab' }) }),
    ]);
    expect(dead[0]?.reason).toContain('campaign_id');
  });
});
