// Embedded ClickHouse runs one parameterized statement at a time, so report statements go ahead of
// background work: while a foreground block runs, background calls wait to enter the engine (never
// longer than 1 s), and at most 4 background calls are in it at once.
import type { ClickHouseClient } from '@clickhouse/client';
import { describe, expect, it } from 'vitest';
import { foreground, prioritized } from '../../src/store/clickhouse/priority.ts';

type Gate = { started: string[]; finish: (name: string) => void };

/** A fake client whose query(name) starts at once and resolves when finish(name) is called. */
function fakeClient(): { client: ClickHouseClient; gate: Gate } {
  const started: string[] = [];
  const pending = new Map<string, () => void>();
  const client = {
    query: ({ query }: { query: string }) =>
      new Promise<string>((resolve) => {
        started.push(query);
        pending.set(query, () => resolve(query));
      }),
    close: async () => {},
  } as unknown as ClickHouseClient;
  return { client, gate: { started, finish: (name) => pending.get(name)?.() } };
}

const tick = () => new Promise((r) => setTimeout(r, 5));

describe('prioritized ClickHouse client', () => {
  it('when a report runs, then background calls issued meanwhile start only after it', async () => {
    const { client, gate } = fakeClient();
    const ch = prioritized(client);
    // The writer's call comes from its own context (not the report's), once the report has begun.
    let startWriter: () => void = () => {};
    const writerTurn = new Promise<void>((r) => (startWriter = r));
    const bg = writerTurn.then(() => ch.query({ query: 'writer-insert' }));
    const report = foreground(async () => {
      const first = ch.query({ query: 'report-1' });
      await tick();
      startWriter();
      await tick();
      expect(gate.started).toEqual(['report-1']);
      gate.finish('report-1');
      await first;
      const second = ch.query({ query: 'report-2' });
      await tick();
      gate.finish('report-2');
      await second;
    });
    await report;
    await tick();
    expect(gate.started).toEqual(['report-1', 'report-2', 'writer-insert']);
    gate.finish('writer-insert');
    await expect(bg).resolves.toBe('writer-insert');
  });

  it('when more than 4 background calls are issued, then only 4 are in the engine at once', async () => {
    const { client, gate } = fakeClient();
    const ch = prioritized(client);
    const calls = ['a', 'b', 'c', 'd', 'e', 'f'].map((q) => ch.query({ query: q }));
    await tick();
    expect(gate.started).toEqual(['a', 'b', 'c', 'd']);
    gate.finish('a');
    await calls[0];
    await tick();
    expect(gate.started).toEqual(['a', 'b', 'c', 'd', 'e']);
    for (const q of ['b', 'c', 'd', 'e', 'f']) {
      gate.finish(q);
      await tick();
    }
    await expect(Promise.all(calls)).resolves.toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
  });

  it('when a report runs for longer than 1 s, then a waiting background call starts anyway', async () => {
    const { client, gate } = fakeClient();
    const ch = prioritized(client);
    let release: () => void = () => {};
    const report = foreground(() => new Promise<void>((r) => (release = r)));
    const bg = ch.query({ query: 'writer-insert' });
    await tick();
    expect(gate.started).toEqual([]);
    await new Promise((r) => setTimeout(r, 1100));
    expect(gate.started).toEqual(['writer-insert']);
    gate.finish('writer-insert');
    await bg;
    release();
    await report;
  });
});
