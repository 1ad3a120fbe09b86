// Workload `reporting-under-ingest` (issue 8): does reporting hurt ingest? The ingest mix of
// `ingest` (same bodies, users registered first, closed loop at max rate, but 8 connections:
// INGEST_CONNECTIONS says why) runs twice against the service on the reporting dataset
// (bench/lib/report-dataset.ts: 10 M facts over 1,000 campaigns; --quick: 500k over 100): alone,
// then with 365-day reports requested back to back (one in flight, distinct queries, so the 60 s
// report cache serves none). The figure is the ingest p99 with reports next to the ingest p99
// alone, same run, same service. The embedded engine runs one statement at a time, so every report
// query delays the fact writer's inserts queued behind it.
import { fetchReport, lastDays, reportVariants } from '../lib/report-check.ts';
import { datasetOnce, type ReportDataset, startOnDataset } from '../lib/report-dataset.ts';
import { ANDROID_AGENTS } from '../lib/seed.ts';
import { round, summarize } from '../lib/stats.ts';
import type { Harness, Workload } from '../lib/workload.ts';
import { preregister, runMix, type User } from './ingest.ts';

/**
 * Fewer than `ingest`'s 50: with 50 requests queued on the service's one core, every step of a report
 * (a dozen Postgres and ClickHouse round trips) waits behind the queue and no 365-day report finished
 * within the 15 s request timeout (measured), so the figure would say nothing about reporting.
 */
const INGEST_CONNECTIONS = 8;

const dataset = datasetOnce('reporting-under-ingest');

/**
 * 365-day reports one after another until stop() is called: the latencies of the answered ones and
 * the failures (a report cut off by the service's request timeout shows as a network error).
 */
function reportLoop(ds: ReportDataset, svc: Parameters<typeof fetchReport>[0], h: Harness) {
  const queries = reportVariants(h.rng('reports'), lastDays(365, ds.timezone), ds.campaigns.length, 5000);
  const ms: number[] = [];
  const failures: string[] = [];
  let stopped = false;
  const done = (async () => {
    for (let i = 0; !stopped && i < queries.length; i++) {
      const t0 = performance.now();
      try {
        await fetchReport(svc, ds.project.serverKey, queries[i] as (typeof queries)[number]);
        ms.push(performance.now() - t0);
      } catch (err) {
        const cause = (err as { cause?: unknown }).cause;
        failures.push(
          `after ${Math.round(performance.now() - t0)} ms: ${String(err)}${cause ? ` (${String(cause)})` : ''}`,
        );
      }
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await done;
      return { ms, failures };
    },
  };
}

export const workload: Workload = {
  name: 'reporting-under-ingest',
  summary:
    'ingest mix p99 while 365-day reports run back to back (10 M facts × 1,000 campaigns) vs the same ingest alone',
  order: 45,
  metrics: [
    {
      id: 'p99',
      label: 'ingest p99 with reports',
      unit: 'ms',
      better: 'lower',
      ceiling: 'ingest p99 alone',
      target: { on: 'ratio', atMost: 1.5, text: '≤ 1.50× ingest alone' },
    },
    { id: 'p50', label: 'ingest p50 with reports', unit: 'ms', better: 'lower', ceiling: 'ingest p50 alone' },
    { id: 'rps', label: 'ingest 2xx/s with reports', unit: 'req/s', better: 'higher', ceiling: 'ingest alone' },
    { id: 'report_p50', label: '365-day report p50 under ingest', unit: 'ms', better: 'lower' },
    { id: 'report_p99', label: '365-day report p99 under ingest', unit: 'ms', better: 'lower' },
    {
      id: 'report_failures',
      label: 'reports failed under ingest',
      unit: 'requests',
      better: 'lower',
      target: { on: 'value', atMost: 0, text: 'none' },
    },
  ],
  async run(h) {
    const ds = await dataset.get(h);
    let last = false;
    try {
      const svc = await startOnDataset(ds, h.runId);
      try {
        const target = { svc, project: ds.project };
        const rng = h.rng('users');
        const users: User[] = Array.from({ length: h.quick ? 100 : 400 }, (_, i) => ({
          installId: rng.uuid(),
          userId: `bench-rui${h.rep}-${i}-${rng.hex(6)}`,
          gaid: rng.uuid(),
          agent: rng.pick(ANDROID_AGENTS),
        }));
        await preregister(target, users, rng);
        const tag = `bench-rui-${h.runId}-${h.rep}`;
        const c = Math.min(INGEST_CONNECTIONS, h.load.connections);
        if (h.load.warmupS > 0) {
          await runMix(target, users, h.rng('warmup'), `${tag}-w-`, c, h.load.warmupS);
        }
        const alone = await runMix(target, users, h.rng('alone'), `${tag}-a-`, c, h.load.durationS);
        const loop = reportLoop(ds, svc, h);
        const withReports = await runMix(target, users, h.rng('with'), `${tag}-r-`, c, h.load.durationS);
        const loopResult = await loop.stop();
        const reports = summarize(loopResult.ms);
        for (const f of loopResult.failures.slice(0, 3)) {
          h.progress(`reporting-under-ingest: a report FAILED ${f}`);
        }
        const ok = (r: typeof alone) => Object.values(r.tally).reduce((s, k) => s + k.ok, 0) / Math.max(1, r.durationS);
        h.progress(
          `reporting-under-ingest: ingest p99 ${round(withReports.latency.p99, 1)} ms with reports vs ${round(alone.latency.p99, 1)} ms alone (${round(ok(withReports), 0)} vs ${round(ok(alone), 0)} 2xx/s); ${reports.count} reports, p50 ${round(reports.p50, 0)} ms, p99 ${round(reports.p99, 0)} ms`,
        );
        last = h.rep === h.reps;
        return {
          measures: {
            p99: { value: withReports.latency.p99, ceiling: alone.latency.p99 },
            p50: { value: withReports.latency.p50, ceiling: alone.latency.p50 },
            rps: { value: ok(withReports), ceiling: ok(alone) },
            report_p50: { value: reports.p50 },
            report_p99: { value: reports.p99 },
            report_failures: { value: loopResult.failures.length },
          },
          details: {
            dataset: { facts: ds.seed.rows, campaigns: ds.campaigns.length, build_s: ds.buildS },
            connections: c,
            duration_s: h.load.durationS,
            users: users.length,
            alone: { latency_ms: alone.latency, by_route: alone.tally, errors: alone.errors },
            with_reports: { latency_ms: withReports.latency, by_route: withReports.tally, errors: withReports.errors },
            reports_ms: reports,
            report_failures: loopResult.failures,
          },
        };
      } finally {
        await svc.stop();
      }
    } catch (err) {
      last = true;
      throw err;
    } finally {
      if (last) {
        await dataset.remove(ds);
      }
    }
  },
};
