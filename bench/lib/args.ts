// `npm run bench -- [workload …] [--quick] [--save-baseline] [--seed N] [--reps N] [--no-pin]`
import type { LoadSettings } from './load.ts';

/** A mistake on the command line: printed without a stack, exit code 2. */
export class UsageError extends Error {}

export type BenchArgs = {
  names: string[];
  quick: boolean;
  saveBaseline: boolean;
  seed: number;
  reps: number;
  pin: boolean;
  load: LoadSettings;
  help: boolean;
};

export const USAGE = `usage: npm run bench -- [workload …] [options]

Starts the service itself (embedded mode; service mode when DATABASE_URL, CLICKHOUSE_URL and
REDIS_URL are all set), measures each workload and its same-run ceiling, and prints a table.
Results go to bench/results/<time>.json and bench/results/latest.json.

options:
  --quick           1 repetition, short runs (a smoke test; not for baselines)
  --save-baseline   write bench/results/baseline.json from this run
  --seed N          data seed (default 42)
  --reps N          repetitions (default 3; --quick: 1)
  --no-pin          do not pin processes to CPUs with taskset
  --help            this text`;

function intFlag(argv: string[], i: number, name: string): number {
  const v = Number(argv[i + 1]);
  if (!Number.isInteger(v) || v < 1) {
    throw new UsageError(`${name} needs a positive whole number`);
  }
  return v;
}

export function parseArgs(argv: string[]): BenchArgs {
  const a = { names: [] as string[], quick: false, saveBaseline: false, seed: 42, reps: 0, pin: true, help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--quick') {
      a.quick = true;
    } else if (arg === '--save-baseline') {
      a.saveBaseline = true;
    } else if (arg === '--no-pin') {
      a.pin = false;
    } else if (arg === '--help' || arg === '-h') {
      a.help = true;
    } else if (arg === '--seed' || arg === '--reps') {
      const v = intFlag(argv, i, arg);
      i += 1;
      if (arg === '--seed') {
        a.seed = v;
      } else {
        a.reps = v;
      }
    } else if (arg.startsWith('-')) {
      throw new UsageError(`unknown option ${arg}`);
    } else {
      a.names.push(arg);
    }
  }
  if (a.quick && a.saveBaseline) {
    throw new UsageError('--save-baseline needs a full run (without --quick)');
  }
  const load: LoadSettings = a.quick
    ? { connections: 50, durationS: 3, warmupS: 1 }
    : { connections: 50, durationS: 10, warmupS: 3 };
  return { ...a, reps: a.reps || (a.quick ? 1 : 3), load };
}
