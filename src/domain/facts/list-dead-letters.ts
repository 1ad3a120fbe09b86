// `facts dead-letters`: the facts ClickHouse refused, with counts per table, the most common
// reasons, and the oldest pending rows (their ids are what `facts replay-dead-letters --id` takes).
import type { PgDeps } from '../../deps.ts';
import {
  countDeadLetters,
  type DeadLetter,
  type DeadLetterCount,
  type DeadLetterReason,
  findPendingDeadLetters,
  summarizeReasons,
} from '../../store/postgres/fact-dead-letters.ts';
import { optionalFactTable, positiveIntFlag } from './fact-flags.ts';

export type DeadLetterListing = { counts: DeadLetterCount[]; reasons: DeadLetterReason[]; rows: DeadLetter[] };

export async function listDeadLetters(
  deps: PgDeps,
  opts: { table?: string; limit?: string },
): Promise<DeadLetterListing> {
  const table = optionalFactTable(opts.table);
  const limit = positiveIntFlag('limit', opts.limit) ?? 100;
  const [counts, reasons, rows] = await Promise.all([
    countDeadLetters(deps.sql, { table }),
    summarizeReasons(deps.sql, { table }, 20),
    findPendingDeadLetters(deps.sql, { table }, limit),
  ]);
  return { counts, reasons, rows };
}
