// A payment removal (sign -1) must land on exactly the key its capture landed on, or revenue does
// not net out and revenue_events (a UInt64 sum of signs) wraps to 2^64-1 on the removal's key. Its
// outbox row names the capture (enrichFrom, the capture's fact id), and the writer gives it the
// capture's written columns rather than the install's attribution of the moment: enriched on its
// own, a refund made while the capture waited for the install went out on the campaign decided
// after the capture had gone out organic. Where the capture is decides what the removal does:
// - in the same batch: it takes the capture's columns as enriched there (or waits with it);
// - in the outbox, in another batch or resting: it waits (released like a row whose install is
//   being attributed), however long the capture takes, and is looked at again later;
// - in ClickHouse: it takes the columns ClickHouse holds;
// - nowhere (a dead letter, or gone): ClickHouse must not get a -1 without its +1, so the removal is
//   refused into the dead letters too, with the capture's columns when its dead letter has them
//   (replaying both puts both back) and the install's otherwise.
// The outbox is asked before ClickHouse: a capture leaves the outbox only after ClickHouse took it
// (or as a dead letter), so one not in the outbox is in ClickHouse, or refused, by then.
import type { Deps } from '../../deps.ts';
import { findWrittenAttributions } from '../../store/clickhouse/captured-payments.ts';
import { type ClaimedRow, findDeadLetterRows, findQueuedFacts } from '../../store/postgres/fact-outbox.ts';
import { withDeadline } from './deadline.ts';

export type Columns = Record<string, string | number>;

/** Where a removal's capture is; `cols` are the capture's written columns when known. */
export type CaptureState =
  | { at: 'batch'; capture: ClaimedRow }
  | { at: 'outbox' }
  | { at: 'clickhouse'; cols: Columns }
  | { at: 'dead-letter'; cols: Columns }
  | { at: 'nowhere' };

/** The removal rows' fact ids by project, for their captures outside the batch. */
function outsideByProject(removals: ClaimedRow[], inBatch: Map<string, ClaimedRow>): Map<string, string[]> {
  const byProject = new Map<string, string[]>();
  for (const r of removals) {
    const from = r.enrichFrom as string;
    if (!inBatch.has(`${r.projectId}|${from}`)) {
      byProject.set(r.projectId, [...(byProject.get(r.projectId) ?? []), from]);
    }
  }
  return byProject;
}

/** The columns of `row` named in `keys` (those it has). */
export function pickColumns(row: Record<string, unknown>, keys: readonly string[]): Columns {
  const cols: Columns = {};
  for (const k of keys) {
    const v = row[k];
    if (typeof v === 'string' || typeof v === 'number') {
      cols[k] = v;
    }
  }
  return cols;
}

/**
 * Where each removal's capture is, by the removal's seq. `rows` are the batch's rows (a capture
 * among them is found there), `ownSeqs` every row the batch claimed (a capture of this batch
 * dropped as already stored is in ClickHouse, not waiting), `keys` the columns copied. Throws when
 * ClickHouse does not answer (the batch is retried, as for a failed insert).
 */
export async function locateCaptures(
  deps: Pick<Deps, 'sql' | 'ch'>,
  table: string,
  rows: ClaimedRow[],
  opts: { ownSeqs: string[]; keys: readonly string[]; clickhouseTimeoutMs: number },
): Promise<Map<string, CaptureState>> {
  const { ownSeqs, keys } = opts;
  const removals = rows.filter((r) => r.enrichFrom !== null);
  const inBatch = new Map(rows.map((r) => [`${r.projectId}|${r.factId}`, r]));
  const queued = new Set<string>();
  const written = new Map<string, Columns>();
  const dead = new Map<string, Columns>();
  for (const [projectId, ids] of outsideByProject(removals, inBatch)) {
    for (const id of await findQueuedFacts(deps.sql, table, projectId, ids, ownSeqs)) {
      queued.add(`${projectId}|${id}`);
    }
    const rest = ids.filter((id) => !queued.has(`${projectId}|${id}`));
    const inClickHouse =
      rest.length > 0
        ? await withDeadline(opts.clickhouseTimeoutMs, () => findWrittenAttributions(deps.ch, projectId, rest))
        : new Map<string, Columns>();
    for (const [id, cols] of inClickHouse) {
      written.set(`${projectId}|${id}`, pickColumns(cols, keys));
    }
    const missing = rest.filter((id) => !inClickHouse.has(id));
    if (missing.length > 0) {
      for (const [id, row] of await findDeadLetterRows(deps.sql, table, projectId, missing)) {
        dead.set(`${projectId}|${id}`, pickColumns(row, keys));
      }
    }
  }
  const states = new Map<string, CaptureState>();
  for (const r of removals) {
    const key = `${r.projectId}|${r.enrichFrom}`;
    const capture = inBatch.get(key);
    const cols = written.get(key) ?? dead.get(key);
    states.set(
      r.seq,
      capture
        ? { at: 'batch', capture }
        : queued.has(key)
          ? { at: 'outbox' }
          : cols
            ? { at: written.has(key) ? 'clickhouse' : 'dead-letter', cols }
            : { at: 'nowhere' },
    );
  }
  return states;
}

/** The removal row's JSON with the capture's columns in place of its own. */
export function withCaptureColumns(json: string, cols: Columns): string {
  return JSON.stringify({ ...JSON.parse(json), ...cols });
}

/** Why a removal whose capture ClickHouse does not hold is refused (a dead letter's reason). */
export function orphanReason(captureFactId: string, deadCapture: boolean): string {
  return deadCapture
    ? `the capture it removes (${captureFactId}) is a dead letter: replay them together`
    : `the capture it removes (${captureFactId}) is not in ClickHouse: a removal alone would count -1`;
}
