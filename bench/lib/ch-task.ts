// A ClickHouse job in its own process: `node --import tsx bench/lib/ch-task.ts`, the task file in
// BENCH_CH_TASK, the result file in BENCH_CH_RESULT. chdb opens one data directory per process, and
// the bench process may need its own (the session's facts reader), so the reporting workloads seed
// their dataset and time raw-fact queries here, while their service is stopped. BENCH_CH_PATH names
// the embedded directory; without it, CLICKHOUSE_URL (service mode) is used. Progress lines go to
// stdout.
import { readFile, writeFile } from 'node:fs/promises';
import { type ClickHouseClient, type ClickHouseSettings, createClient } from '@clickhouse/client';
import { createEmbeddedClickHouse } from '../../src/store/clickhouse/client.ts';
import { type RawPage, type RawQuery, rawReport } from './report-raw.ts';
import { REFUNDS_SQL, type SeedCounts, type SeedPlan, seedCounts, seedParams, seedSteps } from './report-seed.ts';

export type ChTask =
  | { kind: 'seed'; plan: SeedPlan; chunkRows: number }
  | { kind: 'raw'; projectId: string; queries: RawQuery[]; keep: number[] };

export type SeedResult = { kind: 'seed'; counts: SeedCounts; refunds: number; rows: number; seconds: number };
export type RawResult = { kind: 'raw'; ms: number[]; pages: Record<number, RawPage> };

const say = (line: string) => process.stdout.write(`progress ${line}\n`);

async function open(): Promise<ClickHouseClient> {
  const dir = process.env.BENCH_CH_PATH;
  if (dir) {
    return createEmbeddedClickHouse(dir);
  }
  return createClient({
    url: process.env.CLICKHOUSE_URL,
    username: process.env.CLICKHOUSE_USER,
    password: process.env.CLICKHOUSE_PASSWORD,
    database: process.env.CLICKHOUSE_DATABASE,
    request_timeout: 600_000,
  });
}

/** Every insert names its own dedup token: chdb keeps settings between statements (store/clickhouse/migrate.ts). */
const insertSettings = (token: string): ClickHouseSettings => ({
  insert_deduplicate: 1,
  insert_deduplication_token: token,
  deduplicate_blocks_in_dependent_materialized_views: 1,
});

const SEEDED_TABLES = [
  'clicks',
  'attributions',
  'install_events',
  'signups',
  'events',
  'payments',
  'spend',
  'uninstalls',
];

async function seed(ch: ClickHouseClient, plan: SeedPlan, chunkRows: number): Promise<SeedResult> {
  const t0 = performance.now();
  const counts = seedCounts(plan.facts);
  const params = seedParams(plan, counts);
  const steps = seedSteps(counts);
  const total = steps.reduce((s, x) => s + x.rows, 0);
  let done = 0;
  for (const step of steps) {
    for (let start = 0; start < step.rows; start += chunkRows) {
      const count = Math.min(chunkRows, step.rows - start);
      await ch.command({
        query: step.sql,
        query_params: { ...params, start, count },
        clickhouse_settings: insertSettings(`bench-seed:${plan.projectId}:${plan.seed}:${step.table}:${start}`),
      });
      done += count;
      const s = (performance.now() - t0) / 1000;
      say(`${(done / 1e6).toFixed(2)} M / ${(total / 1e6).toFixed(2)} M facts (${step.table}), ${s.toFixed(0)} s`);
    }
  }
  await ch.command({
    query: REFUNDS_SQL,
    query_params: params,
    clickhouse_settings: insertSettings(`bench-seed:${plan.projectId}:${plan.seed}:refunds`),
  });
  const [r] = await (
    await ch.query({
      query: `SELECT toString(count()) AS n FROM payments WHERE project_id = {p:String} AND sign = -1`,
      format: 'JSONEachRow',
      query_params: { p: plan.projectId },
    })
  ).json<{ n: string }>();
  const refunds = Number(r?.n ?? 0);
  // A year-old dataset is merged in production; merging now keeps background merges out of the timings.
  say('merging parts (OPTIMIZE … FINAL)');
  const all = [...SEEDED_TABLES, 'campaign_daily', 'campaign_event_daily', 'campaign_payment_daily'];
  for (const t of [...all, 'retention_cohort', 'revenue_cohort', 'clicks_by_key', 'clicks_by_ip']) {
    await ch.command({ query: `OPTIMIZE TABLE ${t} FINAL` });
  }
  return { kind: 'seed', counts, refunds, rows: total + refunds, seconds: (performance.now() - t0) / 1000 };
}

async function raw(ch: ClickHouseClient, projectId: string, queries: RawQuery[], keep: number[]): Promise<RawResult> {
  const ms: number[] = [];
  const pages: Record<number, RawPage> = {};
  for (const [i, q] of queries.entries()) {
    const t0 = performance.now();
    const page = await rawReport(ch, projectId, q);
    ms.push(performance.now() - t0);
    if (keep.includes(i)) {
      pages[i] = page;
    }
  }
  return { kind: 'raw', ms, pages };
}

async function main(taskFile: string, resultFile: string): Promise<void> {
  const task = JSON.parse(await readFile(taskFile, 'utf8')) as ChTask;
  const ch = await open();
  try {
    const result =
      task.kind === 'seed'
        ? await seed(ch, task.plan, task.chunkRows)
        : await raw(ch, task.projectId, task.queries, task.keep);
    await writeFile(resultFile, JSON.stringify(result));
  } finally {
    await ch.close();
  }
}

const [taskFile, resultFile] = [process.env.BENCH_CH_TASK, process.env.BENCH_CH_RESULT];
if (taskFile && resultFile) {
  main(taskFile, resultFile).then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`ch-task failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
