// Facts waiting for their install's attribution rest in the outbox (migration 0015): the writer
// gives them back with a not_before and does not claim them again before it, so they are not
// parsed and given back on every tick, and rows behind them go out meanwhile. The attribution
// decision wakes them: they go out, with the campaign, on the next flush.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { flushFactBatch } from '../../src/domain/facts/flush-facts.ts';
import { attribute, flushFacts, init, useClientHarness } from '../support/client.ts';
import { newProject, type TestProject } from '../support/harness.ts';
import { signupFacts, trigger } from '../support/users.ts';

const h = useClientHarness();

async function restingRows(p: TestProject) {
  return h().deps.sql<{ fact_table: string; resting: boolean }[]>`
    SELECT fact_table, not_before > now() AS resting FROM fact_outbox WHERE project_id = ${p.project.id}
    ORDER BY fact_table`;
}

describe('resting outbox rows', () => {
  it('when a sign-up (and its install event) waits for attribution, then it rests, later rows go out, and the decision wakes it', async () => {
    // Arrange: a sign-up of an install still pending attribution, given back once by the writer
    const { deps } = h();
    const p = await newProject(deps);
    const pending = randomUUID();
    await init(h(), p.token, { install_instance_id: pending });
    await trigger(h(), p.token, pending, 'early');
    await flushFacts(h());
    const afterFirstFlush = await restingRows(p);
    // Act 1: a later sign-up of an attributed install, and more flushes
    const decided = randomUUID();
    await init(h(), p.token, { install_instance_id: decided });
    await attribute(h(), p, decided);
    await trigger(h(), p.token, decided, 'later');
    const again = await flushFactBatch(deps, 'signups');
    await flushFacts(h());
    const whileResting = (await signupFacts(deps, p)).map((s) => s.user_id);
    // Act 2: the pending install is decided
    await attribute(h(), p, pending);
    await flushFacts(h());
    // Assert
    expect(afterFirstFlush).toEqual([
      { fact_table: 'install_events', resting: true },
      { fact_table: 'signups', resting: true },
    ]);
    expect(again).toMatchObject({ inserted: 1, waiting: 0 });
    expect(whileResting).toEqual(['later']);
    expect((await signupFacts(deps, p)).map((s) => s.user_id).sort()).toEqual(['early', 'later']);
    expect(await restingRows(p)).toEqual([]);
  });

  it('when an init registers an install still to be attributed, then its install event rests from the start: no writer claims it until the decision wakes it', async () => {
    // Arrange
    const { deps } = h();
    const p = await newProject(deps);
    const iid = randomUUID();
    // Act
    await init(h(), p.token, { install_instance_id: iid });
    const atInit = await restingRows(p);
    const beforeDecision = await flushFactBatch(deps, 'install_events');
    const claimsBefore = await deps.sql`SELECT 1 FROM fact_batches WHERE fact_table = 'install_events'`;
    await attribute(h(), p, iid);
    await flushFacts(h());
    await init(h(), p.token, { install_instance_id: iid });
    const reopened = await restingRows(p);
    // Assert: nothing was claimed (not even to be given back) before the decision
    expect(atInit).toEqual([{ fact_table: 'install_events', resting: true }]);
    expect(beforeDecision).toMatchObject({ inserted: 0, waiting: 0 });
    expect(claimsBefore).toHaveLength(0);
    const [row] = await deps.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM fact_outbox WHERE project_id = ${p.project.id} AND fact_table = 'install_events'`;
    expect(row?.n).toBe(1);
    // An app open of the decided install does not wait
    expect(reopened).toEqual([{ fact_table: 'install_events', resting: null }]); // no not_before
  });
});
