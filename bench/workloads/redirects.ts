// Workload `redirects`: campaign link redirects per second (GET /<display_id> from phone browsers on
// the service's own host; autocannon follows no redirect) against the bare GET ceiling, then every
// click accepted (3xx) is looked for in ClickHouse once the fact writer has drained the outbox.
// Warm-up visits go to separate campaigns, so the measured campaigns hold only measured clicks.
import { waitForBacklog } from '../lib/facts.ts';
import { cpuDetails, cpuLine } from '../lib/layout.ts';
import { is3xx, runLoad } from '../lib/load.ts';
import { benchDisplayId, createCampaign } from '../lib/project.ts';
import { linkVisits } from '../lib/requests.ts';
import { round } from '../lib/stats.ts';
import type { Workload } from '../lib/workload.ts';

const CAMPAIGNS = 8;
const VISITS_PER_LIST = 64;
const DRAIN_TIMEOUT_MS = 180_000;

export const workload: Workload = {
  name: 'redirects',
  summary:
    'campaign link redirects (302 to the store, click recorded) vs the bare GET ceiling; clicks stored vs accepted',
  order: 10,
  metrics: [
    {
      id: 'rps',
      label: 'redirects/s',
      unit: 'req/s',
      better: 'higher',
      ceiling: 'bare GET',
      target: { on: 'ratio', atLeast: 0.6, text: '≥ 0.60× ceiling' },
    },
    { id: 'p50', label: 'redirect p50', unit: 'ms', better: 'lower', ceiling: 'bare GET p50' },
    { id: 'p99', label: 'redirect p99', unit: 'ms', better: 'lower', ceiling: 'bare GET p99' },
    {
      id: 'stored',
      label: 'clicks stored',
      unit: 'clicks',
      better: 'higher',
      ceiling: 'accepted (3xx)',
      target: { on: 'ratio', atLeast: 1, text: 'none lost (≥ 1.00)' },
    },
  ],
  async run(h) {
    const { svc, project } = await h.service();
    const rng = h.rng('visits');
    const ids = Array.from({ length: CAMPAIGNS }, (_, k) =>
      benchDisplayId(svc, h.runId, `bench-r${h.rep}-${k}-${rng.hex(6)}`),
    );
    const warmIds = [benchDisplayId(svc, h.runId, `bench-r${h.rep}-warm-${rng.hex(6)}`)];
    for (const id of [...ids, ...warmIds]) {
      await createCampaign(svc, project, id);
    }
    const ceiling = await h.ceiling('get');
    const visits = linkVisits(rng, svc.host, ids, VISITS_PER_LIST);
    const warmup = linkVisits(rng, svc.host, warmIds, VISITS_PER_LIST);
    const r = await runLoad(svc.url, visits, h.load, { isOk: is3xx, serverPid: svc.pid, warmup });
    h.progress(
      `redirects: ${Math.round(r.okPerS)} 3xx/s (${round(r.okPerS / ceiling.okPerS, 2)}× bare GET), p50 ${round(r.latency.p50, 2)} ms, p99 ${round(r.latency.p99, 2)} ms; ${cpuLine(r.cpu, 'service', 'postgres')}`,
    );
    // The next workload must not share the CPU with this one's backlog: wait for the writer.
    const drain = await waitForBacklog(svc.pgUrl, project.projectId, DRAIN_TIMEOUT_MS);
    h.progress(`redirects: outbox ${drain.drained ? 'drained' : 'NOT drained'} in ${round(drain.seconds, 1)} s`);
    const accepted = r.ok;
    return {
      measures: {
        rps: { value: r.okPerS, ceiling: ceiling.okPerS },
        p50: { value: r.latency.p50, ceiling: ceiling.p50 },
        p99: { value: r.latency.p99, ceiling: ceiling.p99 },
      },
      details: {
        display_ids: ids,
        responses: r.responses,
        status_counts: r.statusCounts,
        errors: r.errors,
        timeouts: r.timeouts,
        latency_ms: r.latency,
        cpu_cores: cpuDetails(r.cpu, 'service', 'embedded_postgres'),
        outbox_drain: drain,
      },
      afterStop: async (facts) => {
        const counts = await facts.clicksByDisplayId(project.projectId);
        let rows = 0;
        let unique = 0;
        for (const id of ids) {
          rows += counts.get(id)?.rows ?? 0;
          unique += counts.get(id)?.unique ?? 0;
        }
        return {
          measures: { stored: { value: unique, ceiling: accepted } },
          // In-flight requests cut off when the window closes were recorded but never counted as
          // accepted: up to one per connection shows as stored − accepted > 0.
          details: { clicks_accepted: accepted, clicks_stored: unique, duplicate_rows: rows - unique },
        };
      },
    };
  },
};
