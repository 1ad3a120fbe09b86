// Measures the same-run ceilings on the ceiling server, with the same load settings, request shapes
// and client as the workloads that are judged against them.
import type { CeilingServer } from './ceiling-server.ts';
import { cpuDetails, cpuLine } from './layout.ts';
import { is2xx, is3xx, type LoadSettings, runLoad } from './load.ts';
import { paced, timedFetch } from './probe.ts';
import { jsonPosts, linkVisits } from './requests.ts';
import { jsonBodyOfSize, type Rng } from './seed.ts';
import { round, summarize } from './stats.ts';
import type { Ceiling, CeilingKind } from './workload.ts';

export const POST_BODY_BYTES = 600;
/** Offered rate of paced probes (the attribution workload's installs, and the RTT ceiling). */
export const PACED_RATE_PER_S = 50;

function loadDetails(r: Awaited<ReturnType<typeof runLoad>>): Record<string, unknown> {
  return {
    ok_per_s: round(r.okPerS, 1),
    latency_ms: r.latency,
    status_counts: r.statusCounts,
    errors: r.errors,
    cpu_cores: cpuDetails(r.cpu, 'ceiling_server', 'children'),
    duration_s: r.durationS,
  };
}

export async function measureCeiling(
  kind: CeilingKind,
  server: CeilingServer,
  load: LoadSettings,
  rng: Rng,
  quick: boolean,
): Promise<Ceiling> {
  const host = new URL(server.url).host;
  if (kind === 'rtt') {
    // Shaped like an attribution-data poll, the request the attribution probe repeats.
    const body = JSON.stringify({ token: `pt_${rng.hex(32)}`, platform: 'ANDROID', install_instance_id: rng.uuid() });
    const count = quick ? 50 : 200;
    const times = await paced(count, PACED_RATE_PER_S, async () => {
      const r = await timedFetch(`${server.url}/ingest`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      return r.ms;
    });
    const s = summarize(times);
    return { okPerS: PACED_RATE_PER_S, p50: s.p50, p99: s.p99, details: { requests: count, latency_ms: s } };
  }
  const fakeIds = Array.from({ length: 8 }, (_, k) => `ceil-r0-${k}-${rng.hex(6)}`);
  const requests =
    kind === 'get'
      ? linkVisits(rng, host, fakeIds, 64)
      : jsonPosts(
          host,
          kind === 'post_durable' ? '/ingest-durable' : '/ingest',
          Array.from({ length: 16 }, () => jsonBodyOfSize(rng, POST_BODY_BYTES)),
        );
  const r = await runLoad(server.url, requests, load, { isOk: kind === 'get' ? is3xx : is2xx, serverPid: server.pid });
  return {
    okPerS: r.okPerS,
    p50: r.latency.p50,
    p99: r.latency.p99,
    details: loadDetails(r),
    note: cpuLine(r.cpu, 'ceiling server'),
  };
}
