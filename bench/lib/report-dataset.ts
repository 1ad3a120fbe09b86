// The reporting workloads' dataset: their own service instance with its own DATA_DIR, filled with
// N facts over C campaigns. chdb opens a directory in one process only and the running service holds
// it, so the build goes: start the service (Postgres, migrations, the first-start project), add the
// store listings, set the project's zone and insert the campaigns (one multi-row insert), stop it;
// then a child process (ch-task.ts) opens the same ClickHouse directory and generates the facts with
// INSERT … SELECT (report-seed.ts); the service is then restarted on that directory for the
// measurements (startOnDataset). The dataset is built once per run and shared by the repetitions.
import { rmSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { ROOT } from '../../src/lib/paths.ts';
import type { ChTask, RawResult, SeedResult } from './ch-task.ts';
import { startNodeChild, tail } from './child.ts';
import type { Layout } from './layout.ts';
import { type BenchProject, prepareProject } from './project.ts';
import type { SeedCampaign } from './report-seed.ts';
import { RESULTS_DIR } from './results.ts';
import { detectMode, type RunningService, type ServiceMode, startBenchService } from './service.ts';
import { round } from './stats.ts';
import type { Harness } from './workload.ts';

export type DatasetSize = { facts: number; campaigns: number; days: number };

export type ReportDataset = {
  name: string;
  dir: string;
  mode: ServiceMode;
  layout: Layout;
  project: BenchProject;
  timezone: string;
  campaigns: SeedCampaign[];
  endMs: number;
  seed: SeedResult;
  buildS: number;
  starts: number;
  /** The data seed and size it was built from (a kept dataset is reused only for the same ones). */
  dataSeed: number;
  size: DatasetSize;
  /** Opened from a kept directory (BENCH_REUSE_DATASET): never deleted by the run. */
  reused?: boolean;
};

/** What bench-dataset.json holds about a kept dataset, enough to run on it again. */
type SavedDataset = Omit<ReportDataset, 'dir' | 'mode' | 'layout' | 'starts' | 'reused'>;

const SAVED_FILE = 'bench-dataset.json';

/** +05:30: report days are project-local, never UTC days (STYLE.md). */
export const DATASET_TZ = 'Asia/Kolkata';
const NETWORKS = ['META', 'GOOGLE', 'TIKTOK', 'SNAPCHAT', 'APPLE_SEARCH_ADS', 'SANDBOX_ADS'] as const;
const CHUNK_ROWS = 1_000_000;
const DAY_MS = 86_400_000;

function logFileOf(ds: { name: string }, runId: string, n: number): string {
  return path.join(RESULTS_DIR, `service-${runId}-${ds.name}-${n}.log`);
}

/** Campaigns in Postgres, created over the dataset's days; 1 in 10 iOS-only, 1 in 10 Android-only. */
async function insertCampaigns(svc: RunningService, p: BenchProject, size: DatasetSize, endMs: number) {
  const sql = postgres(svc.pgUrl, { max: 1, onnotice: () => {} });
  try {
    await sql`UPDATE projects SET timezone = ${DATASET_TZ} WHERE id = ${p.projectId}`;
    const rows = Array.from({ length: size.campaigns }, (_, i) => {
      const network = NETWORKS[i % NETWORKS.length] as string;
      return {
        project_id: p.projectId,
        display_id: `rep${String(i + 1).padStart(5, '0')}`,
        name: `Report bench ${i + 1} (${network.toLowerCase()})`,
        deeplink: 'benchapp://promo',
        network,
        meta: network === 'META',
        google: network === 'GOOGLE',
        active: i % 20 !== 19,
        created_at: new Date(endMs - Math.round(((size.campaigns - i) / size.campaigns) * size.days * DAY_MS)),
      };
    });
    const made = await sql<{ id: number; display_id: string; network: string }[]>`
      INSERT INTO campaigns ${sql(rows)} RETURNING id, display_id, network`;
    const campaigns: SeedCampaign[] = made.map((c, i) => ({
      id: c.id,
      displayId: c.display_id,
      network: c.network,
      platforms: i % 10 === 7 ? 2 : i % 10 === 8 ? 1 : 3,
    }));
    const listings = campaigns.flatMap((c) => [
      ...(c.platforms & 1 ? [{ campaign_id: c.id, store_listing_id: p.listings.android, platform: 'ANDROID' }] : []),
      ...(c.platforms & 2 ? [{ campaign_id: c.id, store_listing_id: p.listings.ios, platform: 'IOS' }] : []),
    ]);
    await sql`INSERT INTO campaign_store_listings ${sql(listings)}`;
    return campaigns;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Runs a ch-task.ts job in a child process on the dataset's ClickHouse (the service must be stopped). */
export async function runChTask<T extends SeedResult | RawResult>(
  ds: Pick<ReportDataset, 'dir' | 'mode'>,
  task: ChTask,
  progress: (line: string) => void,
  cpu: number | undefined,
): Promise<T> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'bench-ch-task-'));
  try {
    const [taskFile, resultFile] = [path.join(work, 'task.json'), path.join(work, 'result.json')];
    await writeFile(taskFile, JSON.stringify(task));
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      BENCH_CH_TASK: taskFile,
      BENCH_CH_RESULT: resultFile,
    };
    if (ds.mode === 'embedded') {
      env.BENCH_CH_PATH = path.join(ds.dir, 'clickhouse');
    } else {
      for (const k of ['CLICKHOUSE_URL', 'CLICKHOUSE_USER', 'CLICKHOUSE_PASSWORD', 'CLICKHOUSE_DATABASE']) {
        env[k] = process.env[k] ?? '';
      }
    }
    const child = startNodeChild(`ch-task ${task.kind}`, path.join(ROOT, 'bench/lib/ch-task.ts'), env, cpu);
    child.proc.stdout?.on('data', (c: Buffer) => {
      for (const line of c.toString('utf8').split('\n')) {
        if (line.startsWith('progress ')) {
          progress(`${task.kind}: ${line.slice(9)}`);
        }
      }
    });
    const exit = await child.exited;
    if (exit.code !== 0) {
      throw new Error(`ch-task ${task.kind} exited with ${exit.code ?? exit.signal}${tail(child.output())}`);
    }
    return JSON.parse(await readFile(resultFile, 'utf8')) as T;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

export async function buildReportDataset(
  name: string,
  runId: string,
  seed: number,
  size: DatasetSize,
  layout: Layout,
  progress: (line: string) => void,
): Promise<ReportDataset> {
  const t0 = performance.now();
  const { mode } = detectMode(process.env);
  const endMs = Date.now();
  progress(`${name}: building the dataset (${size.facts.toLocaleString('en-US')} facts, ${size.campaigns} campaigns)`);
  const svc = await startBenchService(mode, layout, logFileOf({ name }, runId, 0));
  let project: BenchProject;
  let campaigns: SeedCampaign[];
  try {
    project = await prepareProject(svc, `${runId}-${name}`);
    campaigns = await insertCampaigns(svc, project, size, endMs);
  } finally {
    await svc.stop();
  }
  const ds = { name, dir: svc.dataDir, mode, layout, project, timezone: DATASET_TZ, campaigns, endMs, starts: 0 };
  // Removed by the workload at the end; this covers a bench that exits early.
  if (process.env.BENCH_KEEP_DATASET !== '1') {
    process.once('exit', () => rmSync(ds.dir, { recursive: true, force: true }));
  }
  const plan = { projectId: project.projectId, timezone: DATASET_TZ, seed, endMs, ...size, campaigns };
  const seeded = await runChTask<SeedResult>(ds, { kind: 'seed', plan, chunkRows: CHUNK_ROWS }, progress, undefined);
  const buildS = round((performance.now() - t0) / 1000, 1);
  progress(
    `${name}: dataset ready in ${buildS} s (${seeded.rows.toLocaleString('en-US')} facts incl. ${seeded.refunds} refunds; facts inserted in ${round(seeded.seconds, 1)} s)`,
  );
  return { ...ds, seed: seeded, buildS, dataSeed: seed, size };
}

/** Dataset sizes of the reporting workloads: the 10 M facts over 1,000 campaigns. */
const FULL: DatasetSize = { facts: 10_000_000, campaigns: 1000, days: 400 };
const QUICK: DatasetSize = { facts: 500_000, campaigns: 100, days: 400 };

/**
 * The workload's dataset, built on first use from the run seed (FULL, or QUICK with --quick) and
 * reused by the later repetitions of the run; remove() deletes it and lets the next use rebuild it.
 */
export function datasetOnce(name: string): {
  get: (h: Harness) => Promise<ReportDataset>;
  remove: (ds: ReportDataset) => Promise<void>;
} {
  let dataset: Promise<ReportDataset> | undefined;
  return {
    get: (h) => {
      const seed = h.rng('dataset').int(2 ** 31);
      const size = h.quick ? QUICK : FULL;
      const reuse = process.env.BENCH_REUSE_DATASET;
      dataset ??= reuse
        ? openKeptDataset(name, reuse, seed, size, h.layout, h.progress)
        : buildReportDataset(name, h.runId, seed, size, h.layout, h.progress);
      return dataset;
    },
    remove: async (ds) => {
      await removeDataset(ds);
      dataset = undefined;
    },
  };
}

/** The service again, on the dataset's directory (same project, campaigns and facts). */
export async function startOnDataset(ds: ReportDataset, runId: string): Promise<RunningService> {
  ds.starts += 1;
  return startBenchService(ds.mode, ds.layout, logFileOf(ds, runId, ds.starts), ds.dir);
}

/**
 * A dataset kept by an earlier run (BENCH_KEEP_DATASET=1), opened again instead of built: report
 * changes can then be compared on the same data without the ~4 minutes of building. It must have
 * been built for the same workload, seed and size, in embedded mode (its facts are in its directory).
 */
async function openKeptDataset(
  name: string,
  dir: string,
  seed: number,
  size: DatasetSize,
  layout: Layout,
  progress: (line: string) => void,
): Promise<ReportDataset> {
  const { mode } = detectMode(process.env);
  const file = path.join(dir, SAVED_FILE);
  let saved: Partial<SavedDataset>;
  try {
    saved = JSON.parse(await readFile(file, 'utf8')) as Partial<SavedDataset>;
  } catch (err) {
    throw new Error(
      `BENCH_REUSE_DATASET: cannot read ${file} (keep a dataset with BENCH_KEEP_DATASET=1): ${String(err)}`,
    );
  }
  const problems = [
    mode !== 'embedded' ? 'reuse works in embedded mode only (a service-mode dataset is in the servers)' : '',
    saved.name !== name ? `it was built for workload '${saved.name ?? '?'}', not '${name}'` : '',
    saved.dataSeed !== seed ? `it was built with another seed (run it with the same --seed)` : '',
    JSON.stringify(saved.size) !== JSON.stringify(size) ? 'it was built for another size (--quick or not)' : '',
  ].filter(Boolean);
  if (problems.length > 0) {
    throw new Error(`BENCH_REUSE_DATASET=${dir}: ${problems.join('; ')}`);
  }
  const ds = { ...(saved as SavedDataset), dir, mode, layout, starts: 0, reused: true };
  progress(`${name}: reusing the dataset kept in ${dir} (${ds.seed.rows.toLocaleString('en-US')} facts)`);
  return ds;
}

async function removeDataset(ds: ReportDataset): Promise<void> {
  if (ds.reused) {
    return;
  }
  if (process.env.BENCH_KEEP_DATASET === '1') {
    // For profiling report reads on the same data, or a later run with BENCH_REUSE_DATASET.
    const { dir: _dir, mode: _mode, layout: _layout, starts: _starts, reused: _reused, ...kept } = ds;
    await writeFile(path.join(ds.dir, SAVED_FILE), JSON.stringify(kept, null, 1));
    process.stderr.write(
      `BENCH_KEEP_DATASET=1: dataset kept in ${ds.dir} (run again on it with BENCH_REUSE_DATASET=${ds.dir})\n`,
    );
    return;
  }
  await rm(ds.dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
}
