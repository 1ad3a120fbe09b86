// `facts replay-dead-letters`: puts refused facts (fixed by the operator in fact_dead_letters.row,
// or refused for a reason that has since gone) back on their way to ClickHouse. Only Postgres is
// touched, so it runs beside a live server in both modes: each chunk of dead letters is written
// back to the outbox as a retry batch that is due at once, and marked replayed, in one
// transaction. The fact writer treats such a batch like any retry: it first asks ClickHouse which
// of its fact ids are already stored and inserts only the others (with a token derived from the
// fact ids), so a fact replayed twice, or one that did land, is never counted twice. That check
// cannot tell two copies of one fact within a batch apart, so a fact with two pending dead letters
// (two writers once both refused it) is sent once, as its oldest dead letter, and its other copies
// are marked replayed with it. A row that is refused again becomes a new dead letter with the new
// reason.
import type { PgDeps } from '../../deps.ts';
import {
  countDeadLetters,
  type DeadLetter,
  lockDeadLettersForReplay,
  markCopiesReplayed,
  markReplayed,
  maxDeadLetterId,
} from '../../store/postgres/fact-dead-letters.ts';
import { insertRetryBatch } from '../../store/postgres/fact-outbox.ts';
import { asSql } from '../../store/postgres/pool.ts';
import { InputError } from '../projects/input-error.ts';
import { optionalFactTable, positiveIntFlag } from './fact-flags.ts';
import { FLUSH_BATCH_BYTES, FLUSH_BATCH_ROWS } from './flush-facts.ts';
import { FACT_TABLES } from './tables.ts';

export type ReplayResult = { replayed: number; batches: number; byTable: Record<string, number> };

/**
 * The dead letters in runs of at most FLUSH_BATCH_BYTES of row JSON (at least one each), a retry
 * batch per run, as the writer's own claims are: 10,000 large rows in one retry batch made a batch
 * no insert could take (flush-facts.ts).
 */
function inRuns(list: DeadLetter[]): DeadLetter[][] {
  const runs: DeadLetter[][] = [];
  let run: DeadLetter[] = [];
  let bytes = 0;
  for (const d of list) {
    if (run.length > 0 && bytes >= FLUSH_BATCH_BYTES) {
      runs.push(run);
      run = [];
      bytes = 0;
    }
    run.push(d);
    bytes += Buffer.byteLength(JSON.stringify(d.row));
  }
  if (run.length > 0) {
    runs.push(run);
  }
  return runs;
}

/** One dead letter per fact (table, project, fact id): the oldest, as `rows` come oldest first. */
function onePerFact(rows: DeadLetter[]): DeadLetter[] {
  const seen = new Map<string, DeadLetter>();
  for (const r of rows) {
    const key = JSON.stringify([r.table, r.projectId, r.factId]);
    seen.set(key, seen.get(key) ?? r);
  }
  return [...seen.values()];
}

async function replayChunk(deps: PgDeps, filter: Parameters<typeof lockDeadLettersForReplay>[1]) {
  return deps.sql.begin(async (txh) => {
    const tx = asSql(txh);
    const rows = await lockDeadLettersForReplay(tx, filter, FLUSH_BATCH_ROWS);
    const sent = onePerFact(rows);
    const byTable = new Map<string, DeadLetter[]>();
    for (const r of sent) {
      byTable.set(r.table, [...(byTable.get(r.table) ?? []), r]);
    }
    let batches = 0;
    for (const [table, list] of byTable) {
      for (const run of inRuns(list)) {
        await insertRetryBatch(
          tx,
          table,
          run.map((d) => ({ table, factId: d.factId, projectId: d.projectId, row: d.row })),
        );
        batches += 1;
      }
    }
    await markReplayed(
      tx,
      rows.map((r) => r.id),
    );
    // Copies of the sent facts outside this chunk (past its last id, or not matching --id).
    const copies = await markCopiesReplayed(tx, sent, filter.maxId);
    return { rows, batches, tables: [...rows.map((r) => r.table), ...copies] };
  });
}

export async function replayDeadLetters(
  deps: PgDeps,
  opts: { table?: string; id?: string },
  progress: (line: string) => void = () => {},
): Promise<ReplayResult> {
  const table = optionalFactTable(opts.table);
  const id = positiveIntFlag('id', opts.id)?.toString();
  const total = (await countDeadLetters(deps.sql, { table })).reduce((n, c) => n + c.pending, 0);
  const maxId = await maxDeadLetterId(deps.sql);
  const result: ReplayResult = { replayed: 0, batches: 0, byTable: {} };
  let afterId = '0';
  for (;;) {
    const chunk = await replayChunk(deps, { table, id, tables: FACT_TABLES, afterId, maxId });
    const last = chunk.rows.at(-1);
    if (!last) {
      break;
    }
    afterId = last.id;
    result.replayed += chunk.tables.length;
    result.batches += chunk.batches;
    for (const t of chunk.tables) {
      result.byTable[t] = (result.byTable[t] ?? 0) + 1;
    }
    if (total > FLUSH_BATCH_ROWS) {
      progress(`replayed ${result.replayed} of ${total} dead letters`);
    }
  }
  if (id !== undefined && result.replayed === 0) {
    throw new InputError(
      `no pending dead letter with id ${id}${table ? ` in ${table}` : ''} (see: facts dead-letters)`,
    );
  }
  return result;
}
