// The catalog's one line of JSON per fault test (reliability-catalog §4b) and the verdict on it:
// lost = acked records absent from ClickHouse, dup = stored rows − distinct records, plus ghosts
// (records stored although their request failed), acked installs without an attribution, and
// failures outside the fault windows.
import { expect } from 'vitest';
import { is2xx, type Kind, type Ledger } from './load.ts';
import type { Stored, StoredTable } from './stored.ts';

const TABLE: Record<Kind, StoredTable> = { init: 'installs', trigger: 'signups', event: 'events', payment: 'payments' };

/** A span of the run (ms since the ledger started) in which failed requests are expected. */
export type Window = { fromMs: number; toMs: number };

export type Summary = {
  test: string;
  sent: number;
  acked: number;
  non2xx: Record<string, number>;
  stored: number;
  unique: number;
  lost: number;
  dup: number;
  dlq: number;
  p50_ms: number;
  p99_ms: number;
  recovery_s: number;
  restarts: number;
  ghost: number;
  unattributed: number;
  outside_window: number;
  [extra: string]: unknown;
};

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) {
    return 0;
  }
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;

export function summarize(opts: {
  test: string;
  ledger: Ledger;
  stored: Stored;
  dlq: number;
  restarts: number;
  windows: Window[];
  /** When the fault ended (ms since the ledger started): recovery_s counts failures after it. */
  healedMs: number;
  /** Install ids Postgres holds among the failed inits (ghost inits not yet in ClickHouse). */
  ghostInstalls?: Set<string>;
  extra?: Record<string, unknown>;
}): Summary {
  const { ledger, stored } = opts;
  const non2xx: Record<string, number> = {};
  const acked = new Set<string>();
  const sentKeys = new Set<string>();
  const latencies: number[] = [];
  let lastFailureMs = Number.NEGATIVE_INFINITY;
  let outside = 0;
  const outsideRecs: Record<string, unknown>[] = [];
  const sinceHealed = (ms: number) => round((ms - opts.healedMs) / 1000, 2);
  for (const r of ledger.recs) {
    const id = `${r.kind}:${r.key}`;
    sentKeys.add(id);
    if (is2xx(r)) {
      acked.add(id);
      latencies.push(r.endMs - r.startMs);
      continue;
    }
    non2xx[String(r.status)] = (non2xx[String(r.status)] ?? 0) + 1;
    lastFailureMs = Math.max(lastFailureMs, r.endMs);
    // Inside a window when the request overlaps it (one in flight when the fault began counts).
    if (!opts.windows.some((w) => r.endMs >= w.fromMs && r.startMs <= w.toMs)) {
      outside += 1;
      if (outsideRecs.length < 5) {
        const { kind, status, msg } = r;
        outsideRecs.push({ kind, status, msg, start_s: sinceHealed(r.startMs), end_s: sinceHealed(r.endMs) });
      }
    }
  }
  let rows = 0;
  let unique = 0;
  let lost = 0;
  let ghost = 0;
  for (const id of sentKeys) {
    const [kind, ...rest] = id.split(':') as [Kind, ...string[]];
    const key = rest.join(':');
    const n = stored[TABLE[kind]].get(key) ?? 0;
    rows += n;
    unique += n > 0 ? 1 : 0;
    if (acked.has(id) && n === 0) {
      lost += 1;
    }
    if (!acked.has(id) && (n > 0 || (kind === 'init' && opts.ghostInstalls?.has(key)))) {
      ghost += 1;
    }
  }
  let unattributed = 0;
  let attributionDup = 0;
  for (const id of acked) {
    if (id.startsWith('init:')) {
      const n = stored.attributions.get(id.slice(5)) ?? 0;
      unattributed += n === 0 ? 1 : 0;
      attributionDup += Math.max(0, n - 1);
    }
  }
  latencies.sort((a, b) => a - b);
  return {
    test: opts.test,
    sent: ledger.recs.length,
    acked: ledger.recs.filter(is2xx).length,
    non2xx,
    stored: rows,
    unique,
    lost,
    dup: rows - unique + attributionDup,
    dlq: opts.dlq,
    p50_ms: round(percentile(latencies, 50)),
    p99_ms: round(percentile(latencies, 99)),
    recovery_s: round(Math.max(0, lastFailureMs - opts.healedMs) / 1000),
    restarts: opts.restarts,
    ghost,
    unattributed,
    outside_window: outside,
    // The first few (seconds since the fault ended), to find in the service log.
    ...(outsideRecs.length > 0 ? { outside_window_first: outsideRecs } : {}),
    ...opts.extra,
  };
}

/** Prints the JSON line, then fails on loss, duplicates, dead letters, failures outside the windows or exits. */
export function report(s: Summary, unexpectedExits: unknown[]): void {
  console.log(JSON.stringify(s));
  expect(s.acked, 'the load got no acknowledgement at all').toBeGreaterThan(0);
  expect({ lost: s.lost, dup: s.dup, dlq: s.dlq, unattributed: s.unattributed }).toEqual({
    lost: 0,
    dup: 0,
    dlq: 0,
    unattributed: 0,
  });
  expect(s.outside_window, `failed requests outside the fault window: ${JSON.stringify(s.non2xx)}`).toBe(0);
  expect(unexpectedExits, 'unexpected service exits').toEqual([]);
}
