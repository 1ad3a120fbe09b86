// Child processes of the bench: the service under test and the ceiling server, both started as
// `node --import tsx <file>` like `npm start` does, optionally pinned to a CPU with taskset. Each is
// detached (its own process group), so a Ctrl-C in the terminal reaches only the bench, which then
// stops them in order: SIGINT, wait for the exit, SIGKILL to the group on timeout. An embedded
// Postgres runs in a session of its own: a SIGKILL also stops the one on the child's DATA_DIR.
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../src/lib/paths.ts';
import { runningPostmaster } from '../../src/store/postgres/embedded.ts';

export type Exit = { code: number | null; signal: NodeJS.Signals | null };

export type Child = {
  name: string;
  proc: ChildProcess;
  pid: number;
  /** Its DATA_DIR, whose embedded Postgres a SIGKILL of the group does not reach. */
  dataDir: string | undefined;
  output: () => string;
  exited: Promise<Exit>;
  /** Resolves when stdout matches; rejects if the child exits first or the time runs out. */
  waitForOutput: (re: RegExp, timeoutMs: number) => Promise<RegExpMatchArray>;
};

const running = new Set<Child>();
const MAX_KEPT_OUTPUT = 200_000;

export function startNodeChild(
  name: string,
  script: string,
  env: Record<string, string>,
  cpu: number | undefined,
  logFile?: string,
): Child {
  // e.g. BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the children under load.
  const extra = (process.env.BENCH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const nodeArgs = [...extra, '--import', 'tsx', script];
  const [cmd, args] =
    cpu === undefined ? [process.execPath, nodeArgs] : ['taskset', ['-c', String(cpu), process.execPath, ...nodeArgs]];
  const proc = spawn(cmd, args, { cwd: ROOT, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  if (proc.pid === undefined) {
    throw new Error(`could not start ${name}`);
  }
  let out = '';
  const listeners = new Set<() => void>();
  const log = logFile ? createWriteStream(logFile) : undefined;
  const keep = (c: Buffer) => {
    log?.write(c);
    out = (out + c.toString('utf8')).slice(-MAX_KEPT_OUTPUT);
    for (const l of listeners) {
      l();
    }
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  // 'close' (not 'exit'): by then stdout and stderr have been read to the end.
  const exited = new Promise<Exit>((resolve) =>
    proc.on('close', (code, signal) => {
      log?.end();
      resolve({ code, signal });
    }),
  );
  const child: Child = {
    name,
    proc,
    pid: proc.pid,
    dataDir: env.DATA_DIR,
    output: () => out,
    exited,
    waitForOutput: (re, ms) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => done(new Error(`${name}: nothing matching ${re} after ${ms} ms${tail(out)}`)),
          ms,
        );
        const check = () => {
          const m = out.match(re);
          if (m) {
            done(undefined, m);
          }
        };
        function done(err: Error | undefined, m?: RegExpMatchArray) {
          clearTimeout(timer);
          listeners.delete(check);
          err ? reject(err) : resolve(m as RegExpMatchArray);
        }
        listeners.add(check);
        void exited.then((e) => done(new Error(`${name} exited (${e.code ?? e.signal}) while starting${tail(out)}`)));
        check();
      }),
  };
  running.add(child);
  void exited.then(() => running.delete(child));
  return child;
}

export function tail(text: string, chars = 3000): string {
  return `\n--- last output ---\n${text.slice(-chars)}\n---`;
}

function isRunning(c: Child): boolean {
  return c.proc.exitCode === null && c.proc.signalCode === null;
}

/** SIGINT (graceful), then SIGKILL to the whole group if it has not exited after timeoutMs. */
export async function stopChild(c: Child, timeoutMs: number): Promise<{ exit: Exit; killed: boolean; ms: number }> {
  const t0 = performance.now();
  if (!isRunning(c)) {
    return { exit: await c.exited, killed: false, ms: 0 };
  }
  c.proc.kill('SIGINT');
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), timeoutMs);
  });
  const first = await Promise.race([c.exited, late]);
  clearTimeout(timer);
  if (first !== 'late') {
    return { exit: first, killed: false, ms: performance.now() - t0 };
  }
  killGroup(c);
  return { exit: await c.exited, killed: true, ms: performance.now() - t0 };
}

function killGroup(c: Child): void {
  try {
    process.kill(-c.pid, 'SIGKILL');
  } catch {
    // already gone
  }
  const postmaster = c.dataDir ? runningPostmaster(path.join(c.dataDir, 'postgres')) : undefined;
  if (postmaster) {
    try {
      process.kill(postmaster.pid, 'SIGQUIT'); // Postgres' immediate shutdown
    } catch {
      // already gone
    }
  }
}

/** Last resort on an unexpected exit of the bench: no child outlives it. */
export function killRunningChildrenNow(): void {
  for (const c of running) {
    if (isRunning(c)) {
      killGroup(c);
    }
  }
}
