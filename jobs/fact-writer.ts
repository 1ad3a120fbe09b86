// The fact writer: about once a second per table, moves a batch from the Postgres outbox into
// ClickHouse (flushFactBatch). While ClickHouse is down it backs off and keeps the rows; several
// workers may run it at once (batches are claimed with SKIP LOCKED).
import type { Deps } from '../src/deps.ts';
import { FLUSH_BATCH_ROWS, flushFactBatch } from '../src/domain/facts/flush-facts.ts';
import { FACT_TABLES } from '../src/domain/facts/tables.ts';

export type FactWriter = { stop: () => Promise<void> };

export function startFactWriter(deps: Deps, intervalMs = 1000): FactWriter {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let failures = 0;
  let current: Promise<void> = Promise.resolve();

  const tick = async (): Promise<void> => {
    let busy = false;
    try {
      for (const table of FACT_TABLES) {
        const r = await flushFactBatch(deps, table);
        busy ||= r.inserted + r.deadLettered >= FLUSH_BATCH_ROWS;
        if (r.deadLettered > 0) {
          deps.log.error({ table, count: r.deadLettered }, 'facts refused by ClickHouse were dead-lettered');
        }
      }
      failures = 0;
    } catch (err) {
      failures += 1;
      deps.log.warn(
        { err: String(err), failures },
        'fact writer: ClickHouse or Postgres unavailable; rows stay queued',
      );
    }
    if (!stopped) {
      const delay = busy ? 0 : failures > 0 ? Math.min(30_000, intervalMs * 2 ** failures) : intervalMs;
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
