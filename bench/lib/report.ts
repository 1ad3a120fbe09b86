// What a run prints (stdout: header, table, verdicts, warnings) and what it writes (the results
// JSON: machine, mode, layout, settings, rows, comparisons and every repetition's details).
import { createRequire } from 'node:module';
import os from 'node:os';
import type { Row } from './aggregate.ts';
import type { BenchArgs } from './args.ts';
import { contention } from './layout.ts';
import type { Baseline, Comparison } from './results.ts';
import type { ServiceMode } from './service.ts';
import type { ServiceReport } from './session.ts';
import { round } from './stats.ts';
import { resultsTable, verdictLines } from './table.ts';
import type { RepOutcome, Workload } from './workload.ts';

// Read at load, before the bench pins itself to one CPU (availableParallelism() then says 1).
const CPUS = os.availableParallelism();
const LOAD_AT_START = os.loadavg().map((x) => round(x, 2));
/** Other processes busier than this during a measurement make the run's figures suspect. */
const OTHER_CORES_WARNING = 0.25;

export type RunInfo = {
  args: BenchArgs;
  argv: string[];
  runId: string;
  startedAt: string;
  finishedAt: string;
  durationS: number;
  mode: ServiceMode;
  modeNote: string | undefined;
  layout: Record<string, string>;
  settings: Record<string, string>;
  header: string[];
  service: ServiceReport;
  selected: Workload[];
  outcomes: Map<string, RepOutcome[]>;
  rows: Row[];
  baseline: Baseline | undefined;
  comparisons: Map<string, Comparison>;
};

export function machine(): Record<string, unknown> {
  return {
    cpus: CPUS,
    cpu_model: os.cpus()[0]?.model ?? 'unknown',
    memory_gb: round(os.totalmem() / 2 ** 30, 1),
    node: process.version,
    platform: `${process.platform} ${os.release()} ${process.arch}`,
    load_average_at_start: LOAD_AT_START,
    load_average_at_end: os.loadavg().map((x) => round(x, 2)),
    other_processes_max_cores: round(contention.maxOtherCores, 2),
  };
}

export function renderText(r: RunInfo): string {
  const lines = [
    '',
    `Benchmark ${r.startedAt} · ${r.header.join(' · ')}`,
    `Machine: ${CPUS} CPUs (${os.cpus()[0]?.model ?? '?'}), Node ${process.version}. Every ratio is to a ceiling measured in the same run.`,
    '',
    resultsTable(r.rows, r.comparisons),
    '',
    ...verdictLines(r.rows, r.comparisons),
    r.baseline
      ? `Compared with bench/results/baseline.json (saved ${r.baseline.saved_at}, ${r.baseline.mode} mode); a ratio more than 15 % worse is a REGRESSION.`
      : 'No bench/results/baseline.json yet: `npm run bench -- --save-baseline` writes one.',
  ];
  if (contention.maxOtherCores > OTHER_CORES_WARNING) {
    lines.push(
      `WARNING: other processes used up to ${round(contention.maxOtherCores, 2)} CPU cores during a measurement: the machine was shared, so these figures are noisier than usual.`,
    );
  }
  const stop = r.service.stop;
  if (stop && (stop.killed || stop.code !== 0)) {
    lines.push(
      `WARNING: the service did not stop cleanly on SIGINT (${stop.killed ? 'killed after 40 s' : `exit code ${stop.code}`} after ${round(stop.ms / 1000, 1)} s); see ${r.service.log_file ?? 'the service log'}.`,
    );
  }
  lines.push(`Took ${r.durationS} s.`);
  return `${lines.join('\n')}\n`;
}

export function resultsDoc(r: RunInfo): Record<string, unknown> {
  const autocannon = createRequire(import.meta.url)('autocannon/package.json') as { version: string };
  return {
    schema: 1,
    started_at: r.startedAt,
    finished_at: r.finishedAt,
    duration_s: r.durationS,
    command: `npm run bench -- ${r.argv.join(' ')}`.trim(),
    run_id: r.runId,
    quick: r.args.quick,
    repetitions: r.args.reps,
    seed: r.args.seed,
    machine: machine(),
    mode: r.mode,
    mode_note: r.modeNote ?? null,
    layout: r.layout,
    service_settings: r.settings,
    load: { ...r.args.load, tool: `autocannon ${autocannon.version}` },
    service: r.service,
    rows: r.rows,
    baseline: r.baseline ? { saved_at: r.baseline.saved_at, source: r.baseline.source, mode: r.baseline.mode } : null,
    comparisons: Object.fromEntries(r.comparisons),
    workloads: Object.fromEntries(
      r.selected.map((w) => [
        w.name,
        {
          summary: w.summary,
          repetitions: (r.outcomes.get(w.name) ?? []).map((o) => ({ measures: o.measures, details: o.details })),
        },
      ]),
    ),
  };
}
