// Where each process runs, and how much CPU it used. Reliability catalog §3: on a 2-core box the
// server (API + workers, chdb in-process) gets CPU 0, and the load generator and the databases we
// start (the embedded Postgres) get CPU 1, so the load generator never steals the server's core.
// Always recorded in the results, because ratios are only comparable within one layout.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';

export type Layout = {
  pinned: boolean;
  /** CPU of the service and the ceiling server (undefined: not pinned). */
  serverCpu: number | undefined;
  /** CPU of the bench process (load generator) and of the embedded Postgres. */
  loadCpu: number | undefined;
  describe: Record<string, string>;
};

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function chooseLayout(wantPinned: boolean): Layout {
  const cpus = os.cpus().length;
  if (!wantPinned || cpus < 2 || process.platform !== 'linux' || !hasTaskset()) {
    const why = !wantPinned ? '--no-pin' : cpus < 2 ? 'one CPU' : 'no taskset';
    return {
      pinned: false,
      serverCpu: undefined,
      loadCpu: undefined,
      describe: { all: `unpinned (${why}): every process floats over ${cpus} CPUs` },
    };
  }
  return {
    pinned: true,
    serverCpu: 0,
    loadCpu: 1,
    describe: {
      service: 'cpu 0 (API, workers, chdb in-process)',
      ceiling_server: 'cpu 0',
      load_generator: 'cpu 1 (this process: autocannon and fetch probes)',
      embedded_postgres: 'cpu 1',
    },
  };
}

/** Pins a process and all its threads (and the children it forks later) to one CPU. */
export function pinProcess(pid: number, cpu: number): void {
  execFileSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' });
}

type Stat = { ppid: number; ticks: number };

function readStat(pid: number): Stat | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: fields start after the last ')'.
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) };
  } catch {
    return undefined;
  }
}

/** Every live descendant of pid (children, grandchildren, …). */
export function descendants(pid: number): number[] {
  const parentOf = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    const p = Number(name);
    const st = Number.isInteger(p) ? readStat(p) : undefined;
    if (st) {
      parentOf.set(p, st.ppid);
    }
  }
  const out: number[] = [];
  const frontier = [pid];
  while (frontier.length > 0) {
    const parent = frontier.pop() as number;
    for (const [child, ppid] of parentOf) {
      if (ppid === parent) {
        out.push(child);
        frontier.push(child);
      }
    }
  }
  return out;
}

const TICKS_PER_SECOND = 100; // USER_HZ: 100 on every Linux build we run on (getconf CLK_TCK)

/** CPU seconds used so far by the given processes (live ones only). */
export function cpuSeconds(pids: readonly number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    ticks += readStat(pid)?.ticks ?? 0;
  }
  return ticks / TICKS_PER_SECOND;
}

/** Busy CPU seconds of the whole machine so far (every state but idle and iowait), from /proc/stat. */
function machineBusySeconds(): number {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]?.trim().split(/\s+/).slice(1).map(Number) ?? [];
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = f;
    return (user + nice + system + irq + softirq + steal) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

export type CpuUse = {
  /** The server process (all its threads: for the service, the API, the workers and chdb). */
  serverCores: number;
  /** Its descendants: the embedded Postgres. */
  childCores: number;
  /** This process: the load generator. */
  benchCores: number;
  /** Everything else on the machine. Above ~0.2 the run shared its CPUs and the figures are noisy. */
  otherCores: number;
};

export type CpuWindow = { stop: () => CpuUse };

/** The most CPU other processes took during any measured window of this run (shared-machine warning). */
export const contention = { maxOtherCores: 0 };

/** CPU use over a window. Descendants born during the window count with all their CPU time. */
export function watchCpu(pid: number | undefined): CpuWindow {
  const linux = process.platform === 'linux';
  const kids0 = linux && pid !== undefined ? descendants(pid) : [];
  const t0 = performance.now();
  const s0 = linux && pid !== undefined ? cpuSeconds([pid]) : 0;
  const c0 = cpuSeconds(kids0);
  const b0 = process.cpuUsage();
  const m0 = linux ? machineBusySeconds() : Number.NaN;
  return {
    stop: () => {
      const secs = (performance.now() - t0) / 1000;
      const b = process.cpuUsage(b0);
      const bench = (b.user + b.system) / 1e6;
      if (!linux || pid === undefined) {
        return { serverCores: Number.NaN, childCores: Number.NaN, benchCores: bench / secs, otherCores: Number.NaN };
      }
      const born = descendants(pid).filter((k) => !kids0.includes(k));
      const server = cpuSeconds([pid]) - s0;
      const kids = cpuSeconds(kids0) - c0 + cpuSeconds(born);
      const other = machineBusySeconds() - m0 - server - kids - bench;
      contention.maxOtherCores = Math.max(contention.maxOtherCores, other / secs);
      return {
        serverCores: server / secs,
        childCores: kids / secs,
        benchCores: bench / secs,
        otherCores: Math.max(0, other / secs),
      };
    },
  };
}

const r2 = (x: number): number => Math.round(x * 100) / 100;

/** CPU cores used, for the JSON details. */
export function cpuDetails(u: CpuUse, server: string, children: string): Record<string, number> {
  return {
    [server]: r2(u.serverCores),
    [children]: r2(u.childCores),
    load_generator: r2(u.benchCores),
    other: r2(u.otherCores),
  };
}

/** One progress-line fragment: "cpu: service 0.98, postgres 0.40, bench 0.61, other 0.02". */
export function cpuLine(u: CpuUse, server: string, children?: string): string {
  const kids = children ? `, ${children} ${r2(u.childCores)}` : '';
  return `cpu cores: ${server} ${r2(u.serverCores)}${kids}, bench ${r2(u.benchCores)}, other processes ${r2(u.otherCores)}`;
}
