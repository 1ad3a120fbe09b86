// Small statistics for the harness: medians across repetitions and percentiles of latency samples.
// Percentiles use the nearest-rank rule on the raw samples (no histogram buckets), so a 0.3 ms
// ceiling latency keeps its precision.

export function median(values: readonly number[]): number {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) {
    return Number.NaN;
  }
  const mid = Math.floor(v.length / 2);
  return v.length % 2 === 1 ? (v[mid] as number) : ((v[mid - 1] as number) + (v[mid] as number)) / 2;
}

/** Nearest-rank percentile (p in 0..100) of samples that are already sorted ascending. */
export function percentileSorted(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) {
    return Number.NaN;
  }
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] as number;
}

export type LatencySummary = { count: number; mean: number; p50: number; p90: number; p99: number; max: number };

export function summarize(samples: ArrayLike<number>): LatencySummary {
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (const x of sorted) {
    sum += x;
  }
  return {
    count: sorted.length,
    mean: sorted.length ? sum / sorted.length : Number.NaN,
    p50: percentileSorted(sorted, 50),
    p90: percentileSorted(sorted, 90),
    p99: percentileSorted(sorted, 99),
    max: sorted.length ? (sorted[sorted.length - 1] as number) : Number.NaN,
  };
}

/** Growable Float64 buffer: a load run records one latency per response without boxing numbers. */
export class SampleBuffer {
  private data = new Float64Array(1 << 16);
  private n = 0;

  push(x: number): void {
    if (this.n === this.data.length) {
      const next = new Float64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.n++] = x;
  }

  values(): Float64Array {
    return this.data.subarray(0, this.n);
  }
}

export const round = (x: number, digits: number): number => {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
};
