// `npm run bench [-- <workload …>] [--quick] [--save-baseline]`: starts the service and a ceiling
// server as child processes, runs each workload once per repetition (3 by default) next to its
// same-run ceiling, and prints medians as a table (stdout; progress on stderr). Results are written
// to bench/results/<time>.json and latest.json and compared with baseline.json. Targets and
// regressions are reported, never enforced: the exit code is 0 unless the harness itself failed.
import { rowsOf } from './lib/aggregate.ts';
import { type BenchArgs, parseArgs, USAGE, UsageError } from './lib/args.ts';
import { killRunningChildrenNow } from './lib/child.ts';
import { loadWorkloads } from './lib/discover.ts';
import { chooseLayout, type Layout, pinProcess } from './lib/layout.ts';
import { collectAfterStop, runReps } from './lib/repetitions.ts';
import { machine, renderText, resultsDoc } from './lib/report.ts';
import { compareWithBaseline, readBaseline, rowKey, saveBaseline, writeResults } from './lib/results.ts';
import { detectMode, SERVICE_SETTINGS } from './lib/service.ts';
import { Session } from './lib/session.ts';
import { round } from './lib/stats.ts';
import type { RepOutcome } from './lib/workload.ts';

const t0 = performance.now();
const progress = (line: string) => {
  process.stderr.write(`[bench ${((performance.now() - t0) / 1000).toFixed(0).padStart(4)} s] ${line}\n`);
};

function headerLines(args: BenchArgs, mode: string, note: string | undefined, layout: Layout): string[] {
  const pairs = (o: Record<string, string>, sep: string, join: string) =>
    Object.entries(o)
      .map(([k, v]) => `${k}${sep}${v}`)
      .join(join);
  return [
    `mode ${mode}${note ? ` (${note})` : ''}`,
    `layout ${pairs(layout.describe, ': ', '; ')}`,
    `service with ${pairs(SERVICE_SETTINGS, '=', ' ')} (rate limits off: the bench measures the work, not the limiter)`,
    `${args.reps} repetition(s), medians; autocannon ${args.load.connections} connections, ${args.load.warmupS} s warm-up + ${args.load.durationS} s`,
  ];
}

/** Ctrl-C or SIGTERM: stop what the bench started, in order; a second signal kills at once. */
function handleSignals(session: Session): void {
  let interrupted = false;
  const onSignal = (signal: string) => {
    if (interrupted) {
      killRunningChildrenNow();
      process.exit(130);
    }
    interrupted = true;
    progress(`${signal}: stopping the processes the bench started`);
    void session.close().finally(() => process.exit(130));
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('exit', killRunningChildrenNow);
}

async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const selected = await loadWorkloads(args.names);
  const startedAt = new Date().toISOString();
  const runId = Date.now().toString(36);
  const { mode, note } = detectMode(process.env);
  const layout = chooseLayout(args.pin);
  if (layout.pinned && layout.loadCpu !== undefined) {
    pinProcess(process.pid, layout.loadCpu);
  }
  const header = headerLines(args, mode, note, layout);
  for (const line of header) {
    progress(line);
  }
  const session = new Session({ layout, mode, runId, progress });
  handleSignals(session);
  const plan = { selected, reps: args.reps, quick: args.quick, seed: args.seed, runId };
  let outcomes: Map<string, RepOutcome[]>;
  try {
    outcomes = await runReps(plan, session, args.load, progress);
    await collectAfterStop(session, outcomes);
  } finally {
    await session.close();
  }
  const rows = selected.flatMap((w) => rowsOf(w, outcomes.get(w.name) ?? []));
  const baseline = readBaseline();
  const info = {
    args,
    argv,
    runId,
    startedAt,
    finishedAt: new Date().toISOString(),
    durationS: round((performance.now() - t0) / 1000, 1),
    mode,
    modeNote: note,
    layout: layout.describe,
    settings: { ...SERVICE_SETTINGS },
    header,
    service: session.report,
    selected,
    outcomes,
    rows,
    baseline,
    comparisons: compareWithBaseline(rows, baseline),
  };
  process.stdout.write(renderText(info));
  const file = await writeResults(resultsDoc(info), startedAt);
  progress(`results: ${file} and bench/results/latest.json`);
  if (args.saveBaseline) {
    const source = file.slice(file.lastIndexOf('/') + 1);
    await saveBaseline(
      { saved_at: info.finishedAt, source, mode, layout: layout.describe, machine: machine() },
      rows,
      baseline,
    );
    progress(
      `baseline saved: bench/results/baseline.json (${rows
        .filter((r) => r.ratio !== null)
        .map(rowKey)
        .join(', ')})`,
    );
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`error: ${err.message}\n${USAGE}\n`);
      process.exit(2);
    }
    process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
