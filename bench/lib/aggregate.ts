// Repetitions → table rows. Each repetition pairs a figure with the ceiling measured next to it;
// a row quotes the median value, the median ceiling and the median of the per-repetition ratios
// (pairing first keeps a slow moment of the machine from landing on one side of the ratio only).
import { MEMORY_METRICS } from './memory.ts';
import { median } from './stats.ts';
import type { MetricSpec, RepOutcome, Target, Workload } from './workload.ts';

export type Verdict = 'PASS' | 'FALLS SHORT' | 'n/a';

export type Row = {
  workload: string;
  metric: string;
  label: string;
  unit: string;
  better: 'higher' | 'lower';
  value: number;
  ceiling: number | null;
  ceiling_label: string | null;
  ratio: number | null;
  samples: { value: number[]; ceiling: number[]; ratio: number[] };
  target: string | null;
  /** Which number the target bounds. */
  target_on: 'ratio' | 'value' | null;
  verdict: Verdict | null;
};

function verdictOf(t: Target, value: number, ratio: number | null): Verdict {
  const x = t.on === 'ratio' ? ratio : value;
  if (x === null || !Number.isFinite(x)) {
    return 'n/a';
  }
  const low = t.atLeast === undefined || x >= t.atLeast;
  const high = t.atMost === undefined || x <= t.atMost;
  return low && high ? 'PASS' : 'FALLS SHORT';
}

function rowOf(w: Workload, spec: MetricSpec, reps: RepOutcome[]): Row {
  const measures = reps.map((r) => r.measures[spec.id]);
  const values = measures.map((m) => m?.value ?? Number.NaN);
  const ceilings = spec.ceiling ? measures.map((m) => m?.ceiling ?? Number.NaN) : [];
  const ratios = spec.ceiling ? values.map((v, i) => v / (ceilings[i] as number)) : [];
  const value = median(values);
  const ratio = spec.ceiling ? median(ratios) : null;
  return {
    workload: w.name,
    metric: spec.id,
    label: spec.label,
    unit: spec.unit,
    better: spec.better,
    value,
    ceiling: spec.ceiling ? median(ceilings) : null,
    ceiling_label: spec.ceiling ?? null,
    ratio: ratio !== null && Number.isFinite(ratio) ? ratio : null,
    samples: { value: values, ceiling: ceilings, ratio: ratios },
    target: spec.target?.text ?? null,
    target_on: spec.target?.on ?? null,
    verdict: spec.target ? verdictOf(spec.target, value, ratio) : null,
  };
}

export function rowsOf(w: Workload, reps: RepOutcome[]): Row[] {
  // The harness's own measures (peak RSS, bench/lib/memory.ts) get rows when a repetition has them.
  const extra = MEMORY_METRICS.filter((m) => reps.some((r) => r.measures[m.id] !== undefined));
  return [...w.metrics, ...extra].map((spec) => rowOf(w, spec, reps));
}
