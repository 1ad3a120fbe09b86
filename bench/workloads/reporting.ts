// Workload `reporting` (issue 5): GET /api/v1/reporting/campaigns over a year of facts, against the
// same report computed from the raw fact tables without the materialized views. The dataset (10 M
// facts over 1,000 campaigns; --quick: 500k over 100) is generated from the run seed inside
// ClickHouse in the workload's own service instance (bench/lib/report-dataset.ts): clicks, installs,
// reinstalls, re-engagements, app opens, sign-ups, custom events, payments with refunds, spend and
// uninstalls over 400 project-local days (Asia/Kolkata), across ad sets, creatives, keywords and
// both platforms. Each repetition restarts the service on it, sends distinct report requests one
// at a time (30-day and 365-day windows; page, limit, sort, platform and view vary, so the 60 s
// report cache serves none), stops it, and times the raw-facts report of the same queries in a child
// process on the same ClickHouse (chdb in-process, no HTTP or Postgres: a lower bound for a raw
// endpoint). Then one page of up to 100 campaigns per window is computed both ways and every
// number compared; a difference fails the run (it would be a reporting bug).
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { RawResult } from '../lib/ch-task.ts';
import {
  compareWithRaw,
  fetchReport,
  lastDays,
  type ReportBody,
  type ReportQuery,
  reportVariants,
} from '../lib/report-check.ts';
import { datasetOnce, type ReportDataset, runChTask, startOnDataset } from '../lib/report-dataset.ts';
import { RESULTS_DIR } from '../lib/results.ts';
import { round, summarize } from '../lib/stats.ts';
import type { Harness, Workload } from '../lib/workload.ts';

const WINDOWS = [30, 365] as const;

const dataset = datasetOnce('reporting');

/** The number check's query: the 100 campaigns with the most revenue, retargeting view (every counter shown). */
const checkQuery = (w: { from: string; to: string }): ReportQuery => ({
  ...w,
  platform: '',
  sortField: 'revenue',
  descending: true,
  page: 1,
  limit: 100,
  view: 'retargeting',
});

async function timeHttp(ds: ReportDataset, h: Harness, queries: Record<number, ReportQuery[]>) {
  const svc = await startOnDataset(ds, h.runId);
  try {
    const key = ds.project.serverKey;
    for (const d of WINDOWS) {
      await fetchReport(svc, key, { ...checkQuery(lastDays(d, ds.timezone)), page: 2, limit: 10 }); // warm-up
    }
    const ms: Record<number, number[]> = {};
    const requests: (ReportQuery & { window: number; ms: number })[] = [];
    for (const d of WINDOWS) {
      ms[d] = [];
      for (const q of queries[d] ?? []) {
        const t0 = performance.now();
        await fetchReport(svc, key, q);
        const took = performance.now() - t0;
        ms[d].push(took);
        requests.push({ ...q, window: d, ms: round(took, 1) });
      }
      const s = summarize(ms[d]);
      h.progress(
        `reporting: ${d}-day report over HTTP, ${s.count} requests: p50 ${round(s.p50, 1)} ms, p99 ${round(s.p99, 1)} ms`,
      );
    }
    const checks: Record<number, ReportBody> = {};
    for (const d of WINDOWS) {
      checks[d] = await fetchReport(svc, key, checkQuery(lastDays(d, ds.timezone)));
    }
    return { ms, checks, requests };
  } finally {
    await svc.stop();
  }
}

export const workload: Workload = {
  name: 'reporting',
  summary:
    'GET /api/v1/reporting/campaigns p50/p99 (30- and 365-day windows) over 10 M facts × 1,000 campaigns, vs the same report from raw facts; numbers checked equal',
  order: 40,
  metrics: [
    { id: 'p50_30', label: '30-day report p50', unit: 'ms', better: 'lower', ceiling: 'raw-facts report p50' },
    { id: 'p99_30', label: '30-day report p99', unit: 'ms', better: 'lower', ceiling: 'raw-facts report p99' },
    {
      id: 'p50_365',
      label: '365-day report p50',
      unit: 'ms',
      better: 'lower',
      ceiling: 'raw-facts report p50',
      target: { on: 'ratio', atMost: 0.5, text: '≤ 0.50× raw facts' },
    },
    {
      id: 'p99_365',
      label: '365-day report p99',
      unit: 'ms',
      better: 'lower',
      ceiling: 'raw-facts report p99',
      target: { on: 'value', atMost: 200, text: '≤ 200 ms' },
    },
    {
      id: 'check',
      label: 'numbers equal to raw facts',
      unit: 'campaigns',
      better: 'higher',
      ceiling: 'campaigns compared',
      target: { on: 'ratio', atLeast: 1, text: 'all equal' },
    },
  ],
  async run(h) {
    const ds = await dataset.get(h);
    let done = false;
    try {
      const rng = h.rng('queries');
      const httpN = h.quick ? 15 : 40;
      const rawN = h.quick ? 6 : 12;
      const queries: Record<number, ReportQuery[]> = {};
      for (const d of WINDOWS) {
        queries[d] = reportVariants(rng, lastDays(d, ds.timezone), ds.campaigns.length, httpN);
      }
      const http = await timeHttp(ds, h, queries);
      // Raw: the first rawN queries of each window, then the two check pages (the endpoint's campaign ids).
      const rawQueries = [
        ...WINDOWS.flatMap((d) => (queries[d] ?? []).slice(0, rawN)),
        ...WINDOWS.map((d) => ({
          ...checkQuery(lastDays(d, ds.timezone)),
          ids: http.checks[d]?.data.campaigns.map((c) => c.id),
        })),
      ];
      const keep = WINDOWS.map((_, i) => WINDOWS.length * rawN + i);
      h.progress(`reporting: timing ${rawQueries.length} raw-facts reports in a child process`);
      const raw = await runChTask<RawResult>(
        ds,
        { kind: 'raw', projectId: ds.project.projectId, queries: rawQueries, keep },
        h.progress,
        ds.layout.serverCpu,
      );
      const rawMs = (i: number) => raw.ms.slice(i * rawN, (i + 1) * rawN);
      const diffs: string[] = [];
      let compared = 0;
      let nonzero = 0;
      for (const [i, d] of WINDOWS.entries()) {
        const body = http.checks[d] as ReportBody;
        const page = raw.pages[keep[i] as number];
        if (!page) {
          throw new Error(`reporting: no raw-facts page for the ${d}-day check`);
        }
        diffs.push(...compareWithRaw(body, page).map((x) => `${d}-day window: ${x}`));
        compared += body.data.campaigns.length;
        nonzero += page.totals.filter((t) => t.installs > 0 && t.clicks > 0).length;
      }
      if (diffs.length > 0) {
        const file = path.join(RESULTS_DIR, `reporting-mismatch-${h.runId}.json`);
        await writeFile(file, JSON.stringify({ diffs, checks: http.checks, raw: raw.pages }, null, 1));
        throw new Error(
          `REPORTING MISMATCH: the endpoint and the raw facts disagree on ${diffs.length} number(s) (a reporting bug; everything in ${file}):\n  ${diffs.slice(0, 20).join('\n  ')}`,
        );
      }
      h.progress(`reporting: numbers equal for ${compared} campaign rows (${nonzero} with clicks and installs)`);
      const s = Object.fromEntries(WINDOWS.map((d) => [d, summarize(http.ms[d] ?? [])]));
      const r = Object.fromEntries(WINDOWS.map((d, i) => [d, summarize(rawMs(i))]));
      for (const d of WINDOWS) {
        h.progress(
          `reporting: ${d}-day from raw facts, ${r[d]?.count} queries: p50 ${round(r[d]?.p50 ?? 0, 1)} ms, p99 ${round(r[d]?.p99 ?? 0, 1)} ms`,
        );
      }
      done = h.rep === h.reps;
      return {
        measures: {
          p50_30: { value: s[30]?.p50 ?? Number.NaN, ceiling: r[30]?.p50 },
          p99_30: { value: s[30]?.p99 ?? Number.NaN, ceiling: r[30]?.p99 },
          p50_365: { value: s[365]?.p50 ?? Number.NaN, ceiling: r[365]?.p50 },
          p99_365: { value: s[365]?.p99 ?? Number.NaN, ceiling: r[365]?.p99 },
          check: { value: compared, ceiling: compared },
        },
        details: {
          dataset: {
            facts: ds.seed.rows,
            counts: ds.seed.counts,
            refunds: ds.seed.refunds,
            campaigns: ds.campaigns.length,
            build_s: ds.buildS,
            timezone: ds.timezone,
          },
          http_ms: s,
          // Every timed request (its query and time): which pages make the tail.
          http_requests: http.requests,
          raw_ms: r,
          raw_scope:
            'totals of every campaign + custom events and payments of the page; chdb in-process (no HTTP, no Postgres)',
          compared_rows: compared,
          compared_rows_with_activity: nonzero,
        },
      };
    } catch (err) {
      done = true;
      throw err;
    } finally {
      if (done) {
        await dataset.remove(ds);
      }
    }
  },
};
