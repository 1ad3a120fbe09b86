// Bounded buffering (catalog I3, F4): while ClickHouse is away facts wait in the Postgres outbox,
// and once more than FACT_BACKLOG_MAX_ROWS rows wait, client ingest answers 503 + Retry-After
// instead of growing without bound. The answer is at most maxAgeMs old, and one look-up serves
// every request that arrives while it runs. If Postgres cannot answer, requests go through (their
// own writes then fail or succeed on their own).
import type { Deps } from '../../deps.ts';
import { outboxExceeds } from '../../store/postgres/fact-outbox.ts';

/** Seconds a client is told to wait (Retry-After) while the backlog is over the cap. */
export const BACKLOG_RETRY_AFTER_S = 30;

/** Resolves true while the outbox holds more rows than the configured cap. */
export type BacklogCheck = () => Promise<boolean>;

export function createBacklogCheck(deps: Pick<Deps, 'sql' | 'config' | 'log' | 'now'>, maxAgeMs = 1000): BacklogCheck {
  let over = false;
  let checkedAt = Number.NEGATIVE_INFINITY;
  let running: Promise<boolean> | undefined;
  const refresh = async (): Promise<boolean> => {
    try {
      over = await outboxExceeds(deps.sql, deps.config.factBacklogMaxRows);
    } catch (err) {
      deps.log.warn({ err: String(err) }, 'fact backlog check failed; ingest allowed');
      over = false;
    }
    checkedAt = deps.now();
    return over;
  };
  return async () => {
    if (deps.now() - checkedAt < maxAgeMs) {
      return over;
    }
    running ??= refresh().finally(() => {
      running = undefined;
    });
    return running;
  };
}
