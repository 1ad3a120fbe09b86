// Where spend comes from besides the endpoint and CSV import: a network puller (Meta, Google, …,
// later) or the built-in sandbox_ads generator. A source yields rows in the wire shape for a range of
// project-local days; pullSpend (pull-spend.ts) validates and upserts them in batches, so a puller
// holds no rules of its own and may re-pull a range at any time (identical rows write nothing, a
// restated day replaces the earlier value).
import type { Project } from '../../store/postgres/projects.ts';
import type { SpendRowInput } from './spend-row.ts';

/** Inclusive project-local days, YYYY-MM-DD. */
export type SpendRange = { from: string; to: string };

export interface SpendSource {
  /** Network code the rows belong to (upper case, '_' for spaces), e.g. SANDBOX_ADS, META. */
  network: string;
  pull(project: Project, range: SpendRange): AsyncIterable<SpendRowInput>;
}
