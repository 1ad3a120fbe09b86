// `skan dry-run`: what a schema would have answered for a sample of the project's recent iOS
// installs, window by window, from the activity counters kept since SKAN tracking started (the
// request path's own data, so the dry run and live evaluation agree). Writes nothing.
import type { PgDeps } from '../../deps.ts';
import { listSkanSampleInstalls, readSkanActivity } from '../../store/postgres/skan.ts';
import { evaluateSchema, mergeValues, type SkanValues } from './evaluate-schema.ts';
import type { SkanSchema } from './schema.ts';
import { windowActivity } from './window-activity.ts';

export type DryRunRow = { installInstanceId: string; currentFine: number | null; windows: SkanValues[] };

/** First day of each window, the day the evaluator is asked about. */
const WINDOW_FIRST_DAY = [0, 3, 8] as const;

export async function dryRunSkanSchema(
  deps: Pick<PgDeps, 'sql'>,
  projectId: string,
  schema: SkanSchema,
  sample: number,
): Promise<DryRunRow[]> {
  const installs = await listSkanSampleInstalls(deps.sql, projectId, sample);
  const out: DryRunRow[] = [];
  for (const i of installs) {
    const rows = await readSkanActivity(deps.sql, projectId, i.installInstanceId);
    let merged: SkanValues | null = null;
    const windows: SkanValues[] = [];
    for (const [w, day] of WINDOW_FIRST_DAY.entries()) {
      if (!rows.some((r) => r.windowIndex === w)) {
        continue;
      }
      const next = evaluateSchema(schema, windowActivity(rows, w), day);
      if (next) {
        merged = mergeValues(merged, next);
        windows.push(merged);
      }
    }
    out.push({ installInstanceId: i.installInstanceId, currentFine: i.fine, windows });
  }
  return out;
}
