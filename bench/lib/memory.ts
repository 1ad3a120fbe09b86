// Peak memory (RSS) of the service under test during each workload that uses it, from /proc: the
// service process itself (API, workers and the in-process chdb share it) and the largest of its
// child processes (embedded mode: the Postgres postmaster and its backends; none in service mode).
// The harness samples VmRSS every 250 ms for the whole repetition of a workload; VmHWM (the
// kernel's own peak) also counts when the process set a new lifetime high in that window, so a
// spike between two samples is not missed then. Reported as rows of their own with the target.
import { readFileSync } from 'node:fs';
import { descendants } from './layout.ts';
import type { Measures, MetricSpec } from './workload.ts';

const TARGET_MB = 1024;
const target = { on: 'value', atMost: TARGET_MB, text: '≤ 1 GB per process' } as const;

export const MEMORY_METRICS: MetricSpec[] = [
  { id: 'rss_service', label: 'peak RSS, service process', unit: 'MB', better: 'lower', target },
  { id: 'rss_child', label: 'peak RSS, largest child (postgres)', unit: 'MB', better: 'lower', target },
];

type Status = { rss: number; hwm: number };

function readStatus(pid: number): Status | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(s.match(new RegExp(`${key}:\\s+(\\d+) kB`))?.[1] ?? Number.NaN);
    const rss = kb('VmRSS');
    // A zombie (exited, not yet reaped) has no VmRSS line: nothing to sample.
    return Number.isNaN(rss) ? undefined : { rss: rss / 1024, hwm: (kb('VmHWM') || 0) / 1024 };
  } catch {
    return undefined;
  }
}

/** One process's peak in the window: the largest sample, or VmHWM when it rose in the window. */
class Peak {
  private sampled = 0;
  private hwmFirst: number | undefined;
  private hwmLast = 0;

  constructor(readonly pid: number) {}

  /** The current RSS in MB (undefined: the process is gone). */
  sample(): number | undefined {
    const st = readStatus(this.pid);
    if (!st) {
      return undefined;
    }
    this.sampled = Math.max(this.sampled, st.rss);
    this.hwmFirst ??= st.hwm;
    this.hwmLast = st.hwm;
    return st.rss;
  }

  /** `born`: started during the window, so its whole lifetime peak falls in it. */
  value(born: boolean): number {
    const rose = born || (this.hwmFirst !== undefined && this.hwmLast > this.hwmFirst);
    return Math.max(this.sampled, rose ? this.hwmLast : 0);
  }
}

export type MemoryWatch = { stop: () => { measures: Measures; details: Record<string, unknown> } | undefined };

/** Samples `pid()` (undefined: nothing to watch yet) and its descendants until stop(). */
export function watchMemory(pid: () => number | undefined, intervalMs = 250): MemoryWatch {
  if (process.platform !== 'linux') {
    return { stop: () => undefined };
  }
  let main: { peak: Peak; born: boolean } | undefined;
  const kids = new Map<number, Peak>();
  const atStart = new Set<number>();
  let started = false;
  let kidsSumMax = 0;
  const tick = () => {
    const p = pid();
    if (p === undefined) {
      return;
    }
    main ??= { peak: new Peak(p), born: started };
    if (main.peak.sample() === undefined) {
      return;
    }
    let sum = 0;
    for (const k of descendants(p)) {
      if (!started) {
        atStart.add(k);
      }
      const peak = kids.get(k) ?? new Peak(k);
      kids.set(k, peak);
      sum += peak.sample() ?? 0;
    }
    kidsSumMax = Math.max(kidsSumMax, sum);
  };
  tick();
  started = true;
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return {
    stop: () => {
      clearInterval(timer);
      tick();
      if (!main) {
        return undefined;
      }
      const measures: Measures = { rss_service: { value: main.peak.value(main.born) } };
      const child = Math.max(0, ...[...kids.values()].map((k) => k.value(!atStart.has(k.pid))));
      if (kids.size > 0) {
        measures.rss_child = { value: child };
      }
      const r = (x: number) => Math.round(x);
      return {
        measures,
        details: {
          service_mb: r(main.peak.value(main.born)),
          largest_child_mb: r(child),
          children: kids.size,
          /** RSS summed over the children (shared buffers counted once per process). */
          children_sum_max_mb: r(kidsSumMax),
          sample_ms: intervalMs,
        },
      };
    },
  };
}
