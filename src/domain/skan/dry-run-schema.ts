// `skan dry-run`: what a schema gives a sample of the project's recent iOS installs, window by
// window. Writes nothing. The activity counters keep each window's totals, not the order of the
// activity, so the two sources say different things and each window says which it is:
// - `live`: the values live evaluation stored (what the device holds). Only for the current schema
//   and only if they were stored under it; they exist for the last window evaluated.
// - `totals`: the schema evaluated once on the window's final totals. Live evaluation runs per
//   activity, keeps a lock and never lowers a value, so a lock matched early, or an amount range
//   that later activity left, can make live values differ.
import type { PgDeps } from '../../deps.ts';
import { listSkanSampleInstalls, readSkanActivity } from '../../store/postgres/skan.ts';
import { evaluateSchema, mergeValues, type SkanValues } from './evaluate-schema.ts';
import type { SkanSchema } from './schema.ts';
import { storedValues } from './stored-values.ts';
import { windowActivity } from './window-activity.ts';

export type DryRunWindow = SkanValues & { from: 'live' | 'totals' };
export type DryRunRow = { installInstanceId: string; currentFine: number | null; windows: DryRunWindow[] };
/** Set when `schema` is the project's current one: live values stored since then are shown. */
export type LiveSince = { schemaCreatedAt: Date };

/** First day of each window, the day the evaluator is asked about. */
const WINDOW_FIRST_DAY = [0, 3, 8] as const;

export async function dryRunSkanSchema(
  deps: Pick<PgDeps, 'sql'>,
  projectId: string,
  schema: SkanSchema,
  sample: number,
  live?: LiveSince,
): Promise<DryRunRow[]> {
  const installs = await listSkanSampleInstalls(deps.sql, projectId, sample);
  const out: DryRunRow[] = [];
  for (const i of installs) {
    const rows = await readSkanActivity(deps.sql, projectId, i.installInstanceId);
    const underSchema = live !== undefined && i.valuesUpdatedAt !== null && i.valuesUpdatedAt >= live.schemaCreatedAt;
    const held = underSchema ? storedValues(i) : null;
    let merged: SkanValues | null = null;
    const windows: DryRunWindow[] = [];
    for (const [w, day] of WINDOW_FIRST_DAY.entries()) {
      if (held?.window === w) {
        merged = held;
        windows.push({ ...held, from: 'live' });
        continue;
      }
      const next = rows.some((r) => r.windowIndex === w) ? evaluateSchema(schema, windowActivity(rows, w), day) : null;
      if (next) {
        merged = mergeValues(merged, next);
        windows.push({ ...merged, from: 'totals' });
      }
    }
    out.push({ installInstanceId: i.installInstanceId, currentFine: i.fine, windows });
  }
  return out;
}
