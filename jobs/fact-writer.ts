// The fact writer: about once a second per table, moves a batch from the Postgres outbox into
// ClickHouse (flushFactBatch). While ClickHouse is down it backs off and keeps the rows; several
// workers may run it at once (batches are claimed with SKIP LOCKED). Each table is flushed on its
// own, so one table's failing batch never holds the others back.
import type { Deps } from '../src/deps.ts';
import { FLUSH_BATCH_ROWS, type FlushOptions, flushFactBatch } from '../src/domain/facts/flush-facts.ts';
import { FACT_TABLES } from '../src/domain/facts/tables.ts';

export type FactWriter = { stop: () => Promise<void> };
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

  const tick = async (): Promise<void> => {
    let busy = false;
    let failed = false;
    for (const table of FACT_TABLES) {
      if (stopped) {
        break;
      }
      const r = await flushTable(table);
      busy ||= r.busy;
      failed ||= r.failed;
    }
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
