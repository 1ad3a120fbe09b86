// Moves facts from the Postgres outbox into ClickHouse, one batch per table per call. Nothing is
// lost and nothing is counted twice:
// - A batch is deleted from the outbox only after ClickHouse took it. If any step after its claim
//   fails (ClickHouse or Postgres), times out, or the writer dies, the batch stays claimed and is
//   retried: at once after a failure this writer saw, after STALE_CLAIM_MS when its writer vanished.
//   A failure while Postgres is away cannot mark the batch for retry then; the writer remembers it
//   (FlushOptions.unreleased) and marks it once Postgres answers (F2 drains took 12–16 s waiting
//   for STALE_CLAIM_MS on batches claimed as Postgres went down).
// - Dedupe by fact id, twice over. (1) Every insert carries a token derived from the batch id and
//   the fact ids it holds, with deduplicate_blocks_in_dependent_materialized_views, so a retry
//   that races an insert still in flight (timed out but landing) lands once in the raw table and
//   in every view target. (2) A retried batch first asks ClickHouse which of its fact ids it
//   already holds and inserts only the others; this covers retries past the dedup window and
//   replayed dead letters (written back as retry batches, see replay-dead-letters.ts). Fresh
//   batches skip that read: fact ids are unique when written (decided in Postgres first).
// - A batch ClickHouse refuses as bad data is retried row by row, so only the bad rows go to the
//   dead-letter table with the reason; anything else ClickHouse answers counts as an outage.
import { createHash } from 'node:crypto';
import type { Deps } from '../../deps.ts';
import { EncodedRow } from '../../store/clickhouse/encoded-row.ts';
import { findPresentFacts, insertFactRows, isRejection, presentKey } from '../../store/clickhouse/facts.ts';
import {
  type ClaimedRow,
  claimRows,
  deadLetter,
  deleteBatch,
  markBatchForRetry,
  readBatch,
  releaseRows,
  retakeStaleBatch,
  tablesWithWork,
} from '../../store/postgres/fact-outbox.ts';
import { withDeadline } from './deadline.ts';
import { enrichFacts } from './enrich-facts.ts';
import { orphanReason } from './removal-columns.ts';
import { FACT_ID_COLUMN, isFactTable } from './tables.ts';

export const FLUSH_BATCH_ROWS = 10_000;
/**
 * A batch stops growing past this many bytes of row JSON. Rows are usually ~0.5 KB (10,000 make
 * 5 MB), but a client body may be 64 KiB: 10,000 such events made a 600 MB batch that every retry
 * failed to insert (the embedded engine takes the body as one string, past V8's longest), and each
 * failure paused every table.
 */
export const FLUSH_BATCH_BYTES = 16 * 1024 * 1024;
const STALE_CLAIM_MS = 30_000;
/** A ClickHouse call slower than this counts as an outage (the batch is retried with its token). */
const CH_TIMEOUT_MS = 60_000;

export type FlushOptions = {
  staleClaimMs?: number;
  /** FLUSH_BATCH_BYTES unless given (tests). */
  maxBatchBytes?: number;
  clickhouseTimeoutMs?: number;
  /**
   * Batches whose flush failed and that could not be marked for retry (Postgres was away too), kept
   * by the caller across calls: the next call marks them first. Without it such a batch waits for
   * STALE_CLAIM_MS.
   */
  unreleased?: Set<string>;
};
const maxBatchBytes = (opts: FlushOptions) => opts.maxBatchBytes ?? FLUSH_BATCH_BYTES;

export type FlushResult = {
  table: string;
  inserted: number;
  deadLettered: number;
  /** Rows of a retried batch that ClickHouse already held (not inserted again). */
  alreadyStored: number;
  waiting: number;
  /** The batch held FLUSH_BATCH_BYTES or more: its claim stopped there, more rows may be due now. */
  bytesFull: boolean;
};
type FlushDeps = Pick<Deps, 'sql' | 'ch' | 'log' | 'now'>;
type Failed = { row: ClaimedRow; reason: string };

function batchToken(table: string, batchId: string, rows: ClaimedRow[]): string {
  const h = createHash('sha256');
  for (const r of rows) {
    h.update(r.factId).update('\n');
  }
  return `${table}:${batchId}:${h.digest('hex').slice(0, 24)}`;
}

async function dropStored(deps: FlushDeps, table: string, rows: ClaimedRow[], ms: number): Promise<ClaimedRow[]> {
  if (rows.length === 0 || !isFactTable(table)) {
    return rows;
  }
  const stored = await withDeadline(ms, (signal) =>
    findPresentFacts(deps.ch, table, FACT_ID_COLUMN[table], rows, signal),
  );
  return rows.filter((r) => !stored.has(presentKey(r.projectId, r.factId)));
}

/** Inserts the rows; on a refusal, row by row. Returns the refused rows; throws on an outage. */
async function insertBatch(
  deps: FlushDeps,
  table: string,
  batchId: string,
  rows: ClaimedRow[],
  ms: number,
): Promise<Failed[]> {
  if (rows.length === 0) {
    return [];
  }
  try {
    const token = batchToken(table, batchId, rows);
    await withDeadline(ms, (signal) =>
      insertFactRows(
        deps.ch,
        table,
        rows.map((r) => new EncodedRow(r.json)),
        token,
        signal,
      ),
    );
    return [];
  } catch (err) {
    if (!isRejection(err)) {
      throw err;
    }
    deps.log.warn({ table, batch: batchId, err: (err as Error).message }, 'batch refused; retrying row by row');
  }
  // Payment removals go last, and one whose capture was just refused is refused with it: ClickHouse
  // must not get a -1 without its +1 (removal-columns.ts).
  const failed: Failed[] = [];
  const refused = new Set<string>();
  for (const r of [...rows.filter((x) => x.enrichFrom === null), ...rows.filter((x) => x.enrichFrom !== null)]) {
    if (r.enrichFrom !== null && refused.has(`${r.projectId}|${r.enrichFrom}`)) {
      failed.push({ row: r, reason: orphanReason(r.enrichFrom, true) });
      continue;
    }
    try {
      await withDeadline(ms, (signal) =>
        // The project is part of the token: two projects' rows with one event_id are two facts.
        insertFactRows(deps.ch, table, [new EncodedRow(r.json)], `${table}:f:${r.projectId}:${r.factId}`, signal),
      );
    } catch (err) {
      if (!isRejection(err)) {
        throw err;
      }
      failed.push({ row: r, reason: (err as Error).message });
      refused.add(`${r.projectId}|${r.factId}`);
    }
  }
  return failed;
}

const nothingMoved = (table: string): FlushResult => ({
  table,
  inserted: 0,
  deadLettered: 0,
  alreadyStored: 0,
  waiting: 0,
  bytesFull: false,
});

/** Marks the batches a failed flush could not mark for retry; throws while Postgres is still away. */
async function markUnreleased(deps: FlushDeps, unreleased: Set<string> | undefined): Promise<void> {
  for (const batchId of [...(unreleased ?? [])]) {
    await markBatchForRetry(deps.sql, batchId);
    unreleased?.delete(batchId);
  }
}

/**
 * Which of `tables` flushFactBatch would find work in now: rows to claim, or a stale batch to
 * retry. One statement, however many tables.
 */
export function tablesToFlush(deps: Pick<FlushDeps, 'sql'>, tables: readonly string[], opts: FlushOptions = {}) {
  return tablesWithWork(deps.sql, tables, (opts.staleClaimMs ?? STALE_CLAIM_MS) / 1000);
}

/** Flushes one batch of `table`; returns what moved. Throws when ClickHouse or Postgres is unreachable. */
export async function flushFactBatch(deps: FlushDeps, table: string, opts: FlushOptions = {}): Promise<FlushResult> {
  await markUnreleased(deps, opts.unreleased);
  const staleId = await retakeStaleBatch(deps.sql, table, opts.staleClaimMs ?? STALE_CLAIM_MS);
  const batchId = staleId ?? (await claimRows(deps.sql, table, FLUSH_BATCH_ROWS, maxBatchBytes(opts)));
  if (batchId === undefined) {
    return nothingMoved(table);
  }
  try {
    return await flushClaimed(deps, table, batchId, staleId !== undefined, opts);
  } catch (err) {
    // Whatever failed (the insert, or Postgres before or after it), the batch keeps its id and
    // token and is due again at once; a retry skips the facts ClickHouse already holds.
    await markBatchForRetry(deps.sql, batchId).catch(() => opts.unreleased?.add(batchId));
    throw err;
  }
}

async function flushClaimed(
  deps: FlushDeps,
  table: string,
  batchId: string,
  retried: boolean,
  opts: FlushOptions,
): Promise<FlushResult> {
  const batch = await readBatch(deps.sql, batchId);
  if (!batch) {
    return nothingMoved(table);
  }
  const ms = opts.clickhouseTimeoutMs ?? CH_TIMEOUT_MS;
  // A retried batch may have landed already: its stored facts are dropped before anything else.
  const rows = retried ? await dropStored(deps, table, batch.rows, ms) : batch.rows;
  const alreadyStored = batch.rows.length - rows.length;
  if (alreadyStored > 0) {
    deps.log.info({ table, batch: batchId, alreadyStored }, 'retried batch: skipped facts already stored');
  }
  // Released rows leave the batch before its first insert, so a retried batch has the same rows.
  // Refused rows (a payment removal whose capture ClickHouse does not hold) become dead letters.
  const { ready, wait, refused } = await enrichFacts(deps, table, rows, {
    ownSeqs: batch.rows.map((r) => r.seq),
    clickhouseTimeoutMs: ms,
  });
  await releaseRows(
    deps.sql,
    wait.map((r) => r.seq),
  );
  const refusedByClickHouse = await insertBatch(deps, table, batchId, ready, ms);
  const failed = [...refused, ...refusedByClickHouse];
  if (failed.length > 0) {
    await deadLetter(deps.sql, table, batchId, failed);
  } else {
    await deleteBatch(deps.sql, batchId);
  }
  return {
    table,
    inserted: ready.length - refusedByClickHouse.length,
    deadLettered: failed.length,
    alreadyStored,
    waiting: wait.length,
    // The sizes the outbox keeps, as the claim added them up.
    bytesFull: batch.rows.reduce((n, r) => n + r.bytes, 0) >= maxBatchBytes(opts),
  };
}

/** Flushes every pending row of the given tables (tests, shutdown, the writer loop's catch-up). */
export async function flushAllFacts(
  deps: FlushDeps,
  tables: readonly string[],
  opts: FlushOptions = {},
): Promise<void> {
  for (const table of tables) {
    for (;;) {
      const r = await flushFactBatch(deps, table, { staleClaimMs: 0, ...opts });
      if (r.inserted + r.deadLettered + r.alreadyStored === 0) {
        break;
      }
    }
  }
}
