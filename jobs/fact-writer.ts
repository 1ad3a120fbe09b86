// The fact writer: about once a second per table, moves a batch from the Postgres outbox into
// ClickHouse (flushFactBatch), two batches at a time (FLUSH_LANES). While ClickHouse is down it backs off and keeps the rows; several
// workers may run it at once (batches are claimed with SKIP LOCKED). Each table is flushed on its
// own, so one table's failing batch never holds the others back.
import type { Deps } from '../src/deps.ts';
import { FLUSH_BATCH_ROWS, type FlushOptions, flushFactBatch } from '../src/domain/facts/flush-facts.ts';
import { FACT_TABLES } from '../src/domain/facts/tables.ts';

export type FactWriter = { stop: () => Promise<void> };

/**
 * Batches in flight at once. A batch spends about half its time in Postgres (claim, attribution
 * lookup, delete) and half in ClickHouse (the insert): with two lanes one batch's Postgres work
 * overlaps another's insert (`npm run bench -- fact-writer`). Batches never share rows (SKIP LOCKED).
 */
const FLUSH_LANES = 2;
export type FactWriterOptions = FlushOptions & { intervalMs?: number; maxBackoffMs?: number };

export function startFactWriter(deps: Deps, opts: FactWriterOptions = {}): FactWriter {
  const intervalMs = opts.intervalMs ?? 1000;
  const maxBackoffMs = opts.maxBackoffMs ?? 30_000;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let failures = 0;
  let current: Promise<void> = Promise.resolve();

  const flushTable = async (table: string): Promise<{ busy: boolean; failed: boolean }> => {
    try {
      const r = await flushFactBatch(deps, table, opts);
      if (r.deadLettered > 0) {
        deps.log.error({ table, count: r.deadLettered }, 'facts refused by ClickHouse were dead-lettered');
      }
      return { busy: r.inserted + r.deadLettered + r.alreadyStored >= FLUSH_BATCH_ROWS, failed: false };
    } catch (err) {
      deps.log.warn(
        { table, err: String(err), failures: failures + 1 },
        'fact writer: ClickHouse or Postgres unavailable; rows stay queued',
      );
      return { busy: false, failed: true };
    }
  };

  // Tables whose last batch was full get two batches per tick, so both lanes can work on them.
  let busyTables = new Set<string>();
  const tick = async (): Promise<void> => {
    const work: string[] = FACT_TABLES.flatMap((t) => (busyTables.has(t) ? [t, t] : [t]));
    const busyNow = new Set<string>();
    let failed = false;
    const lane = async (): Promise<void> => {
      for (let table = work.shift(); table !== undefined && !stopped; table = work.shift()) {
        const r = await flushTable(table);
        if (r.busy) {
          busyNow.add(table);
        }
        failed ||= r.failed;
      }
    };
    await Promise.all(Array.from({ length: FLUSH_LANES }, lane));
    busyTables = busyNow;
    const busy = busyNow.size > 0;
    failures = failed ? failures + 1 : 0;
    if (!stopped) {
      const delay = failures > 0 ? Math.min(maxBackoffMs, intervalMs * 2 ** failures) : busy ? 0 : intervalMs;
      timer = setTimeout(() => {
        current = tick();
      }, delay);
    }
  };
  timer = setTimeout(() => {
    current = tick();
  }, intervalMs);

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await current;
    },
  };
}
