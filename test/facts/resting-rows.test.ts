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
});
