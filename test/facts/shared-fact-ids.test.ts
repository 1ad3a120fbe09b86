// A fact id is unique within its project only: capture-event's fact id is the client's event_id,
// and two projects may both send "order-1". The writer's repeat checks must tell their facts apart:
// a retried batch skips the facts ClickHouse already holds per (project, id), and a batch refused
// as bad data goes row by row with a dedup token per project and id. With a bare id, project B's
// event was lost behind project A's although it had answered "Event captured successfully".
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { flushAllFacts, flushFactBatch } from '../../src/domain/facts/flush-facts.ts';
import { FACT_TABLES } from '../../src/domain/facts/tables.ts';
import { insertOutboxRows } from '../../src/store/postgres/fact-outbox.ts';
import { flushFacts, post, type Res, useClientHarness } from '../support/client.ts';
import { eventFacts, registeredUser } from '../support/commerce.ts';
import { chCounts, outboxRows } from '../support/fact-counts.ts';
import { faultyClickHouse } from '../support/faulty-clickhouse.ts';
import type { TestProject } from '../support/harness.ts';

const h = useClientHarness();

async function capture(p: TestProject, iid: string, eventName: string, eventId: string): Promise<void> {
  const res: Res = await post(h(), 'capture-event', {
    token: p.token,
    platform: 'ANDROID',
    install_instance_id: iid,
    event_name: eventName,
    event_id: eventId,
  });
  expect(res.json().data.message).toBe('Event captured successfully');
}

/** Two projects, each with a registered user, everything they wrote so far in ClickHouse. */
async function twoProjects() {
  const a = await registeredUser(h(), 'alice');
  const b = await registeredUser(h(), 'bob');
  await flushFacts(h());
  return { a, b };
}

describe('one event_id in two projects', () => {
  it('when a retried batch holds project B\'s "order-1" and project A already stored its own, then B\'s event is stored', async () => {
    const { deps } = h();
    const { a, b } = await twoProjects();
    await capture(a.p, a.iid, 'purchase', 'order-1');
    await flushAllFacts(deps, ['events']);
    await capture(b.p, b.iid, 'purchase', 'order-1');
    await capture(a.p, a.iid, 'view', 'view-9');

    // The batch's first insert fails (ClickHouse away); its retry asks which facts already landed.
    const faulty = faultyClickHouse(deps.ch);
    faulty.set('down', { times: 1 });
    await expect(flushFactBatch({ ...deps, ch: faulty.client }, 'events', { staleClaimMs: 0 })).rejects.toThrow();
    await flushAllFacts(deps, FACT_TABLES);

    expect(await outboxRows(deps, b.p.project.id)).toEqual({});
    expect(await chCounts(deps, 'events', a.p.project.id)).toEqual({ rows: 2, unique: 2 });
    expect(await eventFacts(deps, b.p)).toMatchObject([
      { event_id: 'order-1', user_id: 'bob', event_name: 'purchase' },
    ]);
  });

  it('when a batch with both projects\' "order-1" is refused for a bad row and goes row by row, then both are stored', async () => {
    const { deps } = h();
    const { a, b } = await twoProjects();
    await capture(a.p, a.iid, 'purchase', 'order-1');
    await capture(b.p, b.iid, 'purchase', 'order-1');
    const [template] = await deps.sql<{ row: Record<string, unknown> }[]>`
      SELECT row FROM fact_outbox WHERE project_id = ${a.p.project.id} AND fact_table = 'events' LIMIT 1`;
    const badId = `bad_${randomUUID()}`;
    await insertOutboxRows(deps.sql, [
      {
        table: 'events',
        factId: badId,
        projectId: a.p.project.id,
        row: { ...template?.row, event_id: badId, campaign_id: 'not-a-number' },
      },
    ]);

    await flushAllFacts(deps, ['events']);

    expect(await eventFacts(deps, a.p)).toMatchObject([{ event_id: 'order-1', user_id: 'alice' }]);
    expect(await eventFacts(deps, b.p)).toMatchObject([{ event_id: 'order-1', user_id: 'bob' }]);
    const [dead] = await deps.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM fact_dead_letters WHERE fact_id = ${badId}`;
    expect(dead?.n).toBe(1);
  });
});
