// The fact writer: moves batches from the Postgres outbox into ClickHouse (flushFactBatch). A
// table with a full batch waiting is flushed again at once; a drained table is looked at again
// about once a second, every drained table in one statement (tablesToFlush), and flushed when it
// has work. A table whose flush fails backs off on its own (the others keep moving) and keeps its
// rows; while Postgres is down the looks back off too;
// several workers may run it at once (a fact is claimed by one batch only: fact_claims, keyed by
// the outbox seq). Each batch is its own (one table's refused rows are dead-lettered without
// holding the others back).
import type { Deps } from '../src/deps.ts';
import { FLUSH_BATCH_ROWS, type FlushOptions, flushFactBatch, tablesToFlush } from '../src/domain/facts/flush-facts.ts';
import { FACT_TABLES } from '../src/domain/facts/tables.ts';

export type FactWriter = { stop: () => Promise<void> };

/**
 * Lanes: loops that each take the next due table and flush one batch of it. A batch spends about
 * half its time in Postgres (claim, attribution lookup, delete) and half in ClickHouse (the
 * insert); the embedded engine runs one statement at a time, so two lanes settle into turns, one
 * claiming while the other inserts. They run freely: lanes that waited for each other at every
 * round (as a first version did) claimed together and inserted together, and overlapped nothing
 * (`npm run bench -- fact-writer`). Batches never share rows (fact_claims).
 */
const FLUSH_LANES = 2;
export type FactWriterOptions = FlushOptions & { intervalMs?: number; maxBackoffMs?: number };

export function startFactWriter(deps: Deps, opts: FactWriterOptions = {}): FactWriter {
  const intervalMs = opts.intervalMs ?? 1000;
  // Capped at 5 s (was 30 s): a failed round costs one claim and one refused call, and a longer
  // pause only delays the drain once ClickHouse or Postgres is back.
  const maxBackoffMs = opts.maxBackoffMs ?? 5_000;
  let stopped = false;
  /** Failed flushes of each table since its last flush that worked. */
  const failures = new Map<string, number>(FACT_TABLES.map((t) => [t, 0]));
  /** When each table's last flush failed (ms). */
  const failedAt = new Map<string, number>();
  /** Failed looks since the last that worked (Postgres away). */
  let lookFailures = 0;
  /**
   * When each table is next due (ms); a full batch keeps its table due at once, a failed flush puts
   * it off (backoff). At start every table is due: a writer that starts looks at once, so a backlog
   * left by a stopped process moves without waiting a round.
   */
  const due = new Map<string, number>(FACT_TABLES.map((t) => [t, Date.now()]));
  /**
   * Batches in flight per table: a free lane prefers a due table fewer lanes are working on, then
   * the one due longest (not the first in FACT_TABLES: drained tables, due again every second,
   * must not keep a table with rows waiting).
   */
  const busy = new Map<string, number>(FACT_TABLES.map((t) => [t, 0]));
  /**
   * Tables whose last flush found less than a full batch (all of them at start): when due, they are
   * looked at together in one statement, and only those with work are flushed. Claiming each of
   * them every second was most of an idle service's CPU.
   */
  const drained = new Set<string>(FACT_TABLES);
  /** The look in progress, shared by the lanes. */
  let looking: Promise<void> | undefined;
  /** Batches whose flush failed while Postgres was away: marked for retry once it answers (flush-facts.ts). */
  const unreleased = new Set<string>();
  /** After a failed look: no lane starts anything before this (ms). */
  let pausedUntil = 0;
  const sleepers = new Set<() => void>();

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      sleepers.add(wake);
    });

  const nextTable = (now: number): string | undefined => {
    let best: string | undefined;
    for (const t of FACT_TABLES) {
      if ((due.get(t) ?? 0) > now) {
        continue;
      }
      const [lanes, bestLanes] = [busy.get(t) ?? 0, busy.get(best ?? t) ?? 0];
      const waitedLonger = (due.get(t) ?? 0) < (due.get(best ?? t) ?? 0);
      if (best === undefined || lanes < bestLanes || (lanes === bestLanes && waitedLonger)) {
        best = t;
      }
    }
    return best;
  };

  const backoff = (n: number) => Math.min(maxBackoffMs, intervalMs * 2 ** n);
  const warn = (table: string | undefined, err: unknown, n: number) =>
    deps.log.warn(
      { table, err: String(err), failures: n },
      'fact writer: ClickHouse or Postgres unavailable; rows stay queued',
    );

  /**
   * A failed flush puts its table off, longer after each failed round; the other tables go on. One
   * table's batch that keeps failing (ClickHouse refusing that table only) paused every lane each
   * time, and the whole writer crawled; in an outage every table with rows fails on its own turn.
   */
  const failedFlush = (table: string, err: unknown, startedAt: number): void => {
    // Lanes failing together on one table count once, so the backoff grows per retry round.
    const now = Date.now();
    const n = (failures.get(table) ?? 0) + ((failedAt.get(table) ?? 0) < startedAt ? 1 : 0);
    failures.set(table, n);
    failedAt.set(table, now);
    warn(table, err, n);
    due.set(table, Math.max(due.get(table) ?? 0, now + backoff(n)));
  };

  /** A failed look (Postgres away): every lane pauses, longer after each failed look. */
  const failedLook = (err: unknown): void => {
    const now = Date.now();
    if (now >= pausedUntil) {
      lookFailures += 1;
    }
    warn(undefined, err, lookFailures);
    pausedUntil = Math.max(pausedUntil, now + backoff(lookFailures));
  };

  const flushTable = async (table: string): Promise<void> => {
    busy.set(table, (busy.get(table) ?? 0) + 1);
    const startedAt = Date.now();
    try {
      const r = await flushFactBatch(deps, table, { ...opts, unreleased });
      const moved = r.inserted + r.deadLettered + r.alreadyStored;
      // Only a batch that reached ClickHouse says the table works: a flush that found nothing (the
      // other lane held the batch) reset the backoff, and a failing table was retried every round.
      if (moved > 0) {
        failures.set(table, 0);
      }
      if (r.deadLettered > 0) {
        deps.log.error({ table, count: r.deadLettered }, 'facts refused by ClickHouse were dead-lettered');
      }
      if (moved >= FLUSH_BATCH_ROWS || r.bytesFull) {
        // Full (a batch the byte cap stopped is full too): the table goes again at once, even if the
        // other lane's empty flush had just put it off a round.
        drained.delete(table);
        due.set(table, Date.now());
      } else if (moved + r.waiting === 0 && (busy.get(table) ?? 0) > 1) {
        // Nothing claimed while the other lane works on this table: its claim took the rows this
        // one reached for first, and its result says whether more are left. Marking the table
        // drained here put batches of large rows a second apart (test/facts/batch-bytes.test.ts).
      } else {
        // Not sooner than the other lane's failure on this table put it off.
        due.set(table, Math.max(due.get(table) ?? 0, Date.now() + intervalMs));
        drained.add(table);
      }
    } catch (err) {
      failedFlush(table, err, startedAt);
    } finally {
      busy.set(table, (busy.get(table) ?? 1) - 1);
    }
  };

  /** Looks at every drained table that is due: those with work are flushed next, the rest wait a round. */
  const lookAtDrained = (now: number): Promise<void> => {
    looking ??= (async () => {
      const tables = FACT_TABLES.filter((t) => drained.has(t) && (due.get(t) ?? 0) <= now);
      try {
        const withWork = await tablesToFlush(deps, tables, opts);
        lookFailures = 0;
        for (const t of tables) {
          if (withWork.has(t)) {
            drained.delete(t);
          } else {
            due.set(t, Date.now() + intervalMs);
          }
        }
      } catch (err) {
        failedLook(err);
      }
    })().finally(() => {
      looking = undefined;
    });
    return looking;
  };

  const lane = async (): Promise<void> => {
    while (!stopped) {
      const now = Date.now();
      const table = now >= pausedUntil ? nextTable(now) : undefined;
      if (table === undefined) {
        const wakeAt = Math.max(pausedUntil, Math.min(...due.values()));
        await sleep(Math.max(10, wakeAt - now));
        continue;
      }
      // Batches that failed while Postgres was away are marked for retry by the next flush.
      if (drained.has(table) && unreleased.size === 0) {
        await lookAtDrained(now);
        continue;
      }
      await flushTable(table);
    }
  };
  const lanes = Promise.all(Array.from({ length: FLUSH_LANES }, lane));

  return {
    async stop() {
      stopped = true;
      for (const wake of [...sleepers]) {
        wake();
      }
      await lanes;
    },
  };
}
