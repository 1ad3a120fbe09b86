// Results on disk: bench/results/<ISO timestamp>.json and latest.json for every run (git-ignored),
// and baseline.json (committed) that later runs compare their ratios with. A ratio that moved the
// wrong way by more than 15 % is flagged as a regression; nothing fails because of it.
import { existsSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { ROOT } from '../../src/lib/paths.ts';
import type { Row } from './aggregate.ts';

export const RESULTS_DIR = path.join(ROOT, 'bench', 'results');
export const BASELINE_FILE = path.join(RESULTS_DIR, 'baseline.json');
export const REGRESSION_THRESHOLD = 0.15;

export type Baseline = {
  saved_at: string;
  source: string;
  mode: string;
  layout: Record<string, string>;
  machine: Record<string, unknown>;
  rows: Row[];
};

export type Comparison = { baseline_ratio: number; change: number; regressed: boolean };

export const rowKey = (r: Pick<Row, 'workload' | 'metric'>): string => `${r.workload}/${r.metric}`;

export function readBaseline(): Baseline | undefined {
  if (!existsSync(BASELINE_FILE)) {
    return undefined;
  }
  return JSON.parse(readFileSync(BASELINE_FILE, 'utf8')) as Baseline;
}

/** Compares each row's ratio with the baseline's; rows without a ratio (the ceilings) are not compared. */
export function compareWithBaseline(rows: Row[], baseline: Baseline | undefined): Map<string, Comparison> {
  const out = new Map<string, Comparison>();
  const base = new Map((baseline?.rows ?? []).map((r) => [rowKey(r), r]));
  for (const r of rows) {
    const b = base.get(rowKey(r));
    if (r.ratio === null || !b || b.ratio === null || !(b.ratio > 0)) {
      continue;
    }
    const change = r.ratio / b.ratio - 1;
    const regressed = r.better === 'higher' ? change < -REGRESSION_THRESHOLD : change > REGRESSION_THRESHOLD;
    out.set(rowKey(r), { baseline_ratio: b.ratio, change, regressed });
  }
  return out;
}

/** ISO time as a file name (no ':'), so the file also opens on file systems that refuse colons. */
export const stampOf = (iso: string): string => iso.replaceAll(':', '-');

export async function writeResults(doc: Record<string, unknown>, startedIso: string): Promise<string> {
  await fs.mkdir(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${stampOf(startedIso)}.json`);
  const text = `${JSON.stringify(doc, null, 2)}\n`;
  await fs.writeFile(file, text);
  await fs.writeFile(path.join(RESULTS_DIR, 'latest.json'), text);
  return file;
}

/** Writes baseline.json from this run; rows of workloads this run did not measure are kept. */
export async function saveBaseline(next: Omit<Baseline, 'rows'>, rows: Row[], previous: Baseline | undefined) {
  const ran = new Set(rows.map((r) => r.workload));
  const kept = (previous?.rows ?? []).filter((r) => !ran.has(r.workload));
  const doc: Baseline = { ...next, rows: [...kept, ...rows] };
  await fs.mkdir(RESULTS_DIR, { recursive: true });
  await fs.writeFile(BASELINE_FILE, `${JSON.stringify(doc, null, 2)}\n`);
}
