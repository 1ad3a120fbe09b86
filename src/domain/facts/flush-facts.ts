// Moves facts from the Postgres outbox into ClickHouse, one batch per table per call. A batch that
// ClickHouse refuses is retried row by row so only the bad rows go to the dead-letter table; a
// batch that fails because ClickHouse is unreachable stays claimed and is retried later with the
// same token, so nothing is lost and nothing is counted twice.
import type { Deps } from '../../deps.ts';
import { insertFactRows, isRejection } from '../../store/clickhouse/facts.ts';
import {
  type ClaimedRow,
  claimBatch,
  deadLetter,
  deleteBatch,
  findStaleBatch,
} from '../../store/postgres/fact-outbox.ts';

export const FLUSH_BATCH_ROWS = 10_000;
const STALE_CLAIM_MS = 30_000;

export type FlushResult = { table: string; inserted: number; deadLettered: number };

async function insertRowByRow(deps: Pick<Deps, 'ch'>, table: string, batchId: string, rows: ClaimedRow[]) {
  const failed: { row: ClaimedRow; reason: string }[] = [];
  for (const r of rows) {
    try {
      await insertFactRows(deps.ch, table, [r.row], `${table}:${batchId}:${r.seq}`);
    } catch (err) {
      if (!isRejection(err)) {
        throw err;
      }
      failed.push({ row: r, reason: (err as Error).message });
    }
  }
  return failed;
}

/** Flushes one batch of `table`; returns what moved. Throws when ClickHouse is unreachable. */
export async function flushFactBatch(
  deps: Pick<Deps, 'sql' | 'ch' | 'log'>,
  table: string,
  opts: { staleClaimMs?: number } = {},
): Promise<FlushResult> {
  const batch =
    (await findStaleBatch(deps.sql, table, opts.staleClaimMs ?? STALE_CLAIM_MS)) ??
    (await claimBatch(deps.sql, table, FLUSH_BATCH_ROWS));
  if (!batch) {
    return { table, inserted: 0, deadLettered: 0 };
  }
  try {
    await insertFactRows(
      deps.ch,
      table,
      batch.rows.map((r) => r.row),
      `${table}:${batch.batchId}`,
    );
  } catch (err) {
    if (!isRejection(err)) {
      throw err;
    }
    deps.log.warn({ table, batch: batch.batchId, err: (err as Error).message }, 'batch refused; retrying row by row');
    const failed = await insertRowByRow(deps, table, batch.batchId, batch.rows);
    await deadLetter(deps.sql, table, batch.batchId, failed);
    return { table, inserted: batch.rows.length - failed.length, deadLettered: failed.length };
  }
  await deleteBatch(deps.sql, batch.batchId);
  return { table, inserted: batch.rows.length, deadLettered: 0 };
}

/** Flushes every pending row of the given tables (tests, shutdown, the writer loop's catch-up). */
export async function flushAllFacts(deps: Pick<Deps, 'sql' | 'ch' | 'log'>, tables: readonly string[]): Promise<void> {
  for (const table of tables) {
    for (;;) {
      const r = await flushFactBatch(deps, table, { staleClaimMs: 0 });
      if (r.inserted + r.deadLettered === 0) {
        break;
      }
    }
  }
}
