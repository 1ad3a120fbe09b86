// Upserts everything a spend source yields for a range, in batches (see spend-source.ts). The
// source column of the rows is the network code in lower case (sandbox_ads for the generator).
import type { Deps } from '../../deps.ts';
import type { Project } from '../../store/postgres/projects.ts';
import type { SpendRowInput } from './spend-row.ts';
import type { SpendRange, SpendSource } from './spend-source.ts';
import { type SpendRejection, type UpsertSpendResult, upsertSpend } from './upsert-spend.ts';

const BATCH = 1000;

export type PullSpendResult = UpsertSpendResult & { rows: number };

export async function pullSpend(
  deps: Pick<Deps, 'sql' | 'now'>,
  project: Project,
  source: SpendSource,
  range: SpendRange,
): Promise<PullSpendResult> {
  const total: PullSpendResult = { rows: 0, accepted: 0, unchanged: 0, rejected: [] };
  let batch: SpendRowInput[] = [];
  const flush = async () => {
    const offset = total.rows;
    const r = await upsertSpend(deps, project, batch, {
      source: source.network.toLowerCase(),
      rowLabel: (i) => `row ${i + offset}`,
    });
    total.accepted += r.accepted;
    total.unchanged += r.unchanged;
    total.rejected.push(...r.rejected.map((x): SpendRejection => ({ index: x.index + offset, reason: x.reason })));
    total.rows += batch.length;
    batch = [];
  };
  for await (const row of source.pull(project, range)) {
    batch.push(row);
    if (batch.length === BATCH) {
      await flush();
    }
  }
  if (batch.length > 0) {
    await flush();
  }
  return total;
}
