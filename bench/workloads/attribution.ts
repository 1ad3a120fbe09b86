// Workload `attribution` (reliability catalog §4a L5): init → settled attribution latency. Each
// install is a phone that opens a campaign link (the 302's Play `referrer` carries our click id),
// then its app calls POST /api/client/init with that referrer as install_ref, then polls
// /api/client/attribution-data every 100 ms until attribution_source is no longer PENDING.
// Installs start at a fixed offered rate (open loop). Over real HTTP every request comes from
// 127.0.0.1, so matching relies on the Play referrer path, which is deterministic.
// The figure includes the click's trip through the outbox to ClickHouse (the job waits for it).
// Its ceiling is the best this probe could ever report: settled at the first poll (100 ms) plus one
// bare POST round trip at the same pacing. An install still PENDING after 30 s counts as 30 s in
// the percentiles and as not attributed.

import { PACED_RATE_PER_S } from '../lib/ceilings.ts';
import { waitForBacklog } from '../lib/facts.ts';
import { cpuDetails, cpuLine, watchCpu } from '../lib/layout.ts';
import { paced, sleep, timedFetch } from '../lib/probe.ts';
import { benchDisplayId, createCampaign } from '../lib/project.ts';
import { ANDROID_AGENTS, type Rng } from '../lib/seed.ts';
import { round, summarize } from '../lib/stats.ts';
import type { BenchTarget, Workload } from '../lib/workload.ts';

const POLL_MS = 100;
const SETTLE_TIMEOUT_MS = 30_000;
const BACKLOG_TIMEOUT_MS = 120_000;

type Device = { installId: string; gaid: string; agent: string };
/** Round trips of every request, by kind, for the details (where did the time go?). */
type Trips = { click: number[]; init: number[]; poll: number[] };

type Outcome =
  | { kind: 'settled'; ms: number; polls: number; source: string; campaign: string | undefined }
  | { kind: 'timeout' | 'click_failed' | 'init_failed'; status?: number };

type AttributionAnswer = { data?: { attribution_source?: string; campaign_data?: { id?: string } | null } };

function devices(rng: Rng, n: number): Device[] {
  return Array.from({ length: n }, () => ({
    installId: rng.uuid(),
    gaid: rng.uuid(),
    agent: rng.pick(ANDROID_AGENTS),
  }));
}

async function install(t: BenchTarget, displayId: string, d: Device, trips: Trips): Promise<Outcome> {
  const { svc, project } = t;
  const click = await timedFetch(`${svc.url}/${displayId}?utm_source=bench`, { headers: { 'user-agent': d.agent } });
  trips.click.push(click.ms);
  const location = click.headers.get('location');
  if (click.status !== 302 || !location) {
    return { kind: 'click_failed', status: click.status };
  }
  const installRef = new URL(location).searchParams.get('referrer') ?? '';
  const json = { 'content-type': 'application/json', 'user-agent': 'okhttp/4.12.0' };
  const ids = { token: project.token, platform: 'ANDROID', install_instance_id: d.installId };
  const init = await timedFetch(`${svc.url}/api/client/init`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({
      ...ids,
      app_version: '1.0.0',
      device_data: { install_ref: installRef, gaid: d.gaid, system_version: '14', device_name: 'samsung SM-S911B' },
    }),
  });
  trips.init.push(init.ms);
  if (init.status !== 202) {
    return { kind: 'init_failed', status: init.status };
  }
  const accepted = performance.now();
  for (let polls = 1; performance.now() - accepted < SETTLE_TIMEOUT_MS; polls++) {
    await sleep(accepted + polls * POLL_MS - performance.now());
    const r = await timedFetch<AttributionAnswer>(`${svc.url}/api/client/attribution-data`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify(ids),
    });
    trips.poll.push(r.ms);
    const source = r.body?.data?.attribution_source;
    if (r.status === 200 && source && source !== 'PENDING') {
      const campaign = r.body.data?.campaign_data?.id;
      return { kind: 'settled', ms: performance.now() - accepted, polls, source, campaign };
    }
  }
  return { kind: 'timeout' };
}

export const workload: Workload = {
  name: 'attribution',
  summary: `click → init → poll attribution-data every ${POLL_MS} ms; installs paced at ${PACED_RATE_PER_S}/s`,
  order: 20,
  metrics: [
    { id: 'p50', label: 'init → settled p50', unit: 'ms', better: 'lower', ceiling: '100 ms poll + bare POST RTT p50' },
    { id: 'p99', label: 'init → settled p99', unit: 'ms', better: 'lower', ceiling: '100 ms poll + bare POST RTT p99' },
    {
      id: 'inorganic',
      label: 'attributed INORGANIC in 30 s',
      unit: 'installs',
      better: 'higher',
      ceiling: 'installs sent',
      target: { on: 'ratio', atLeast: 0.99, text: '≥ 0.99 of installs' },
    },
  ],
  async run(h) {
    const target = await h.service();
    const rng = h.rng('devices');
    const displayId = benchDisplayId(target.svc, h.runId, `bench-a${h.rep}-${rng.hex(6)}`);
    await createCampaign(target.svc, target.project, displayId);
    const rtt = await h.ceiling('rtt');
    const n = h.quick ? 50 : 500;
    const list = devices(rng, n);
    const cpu = watchCpu(target.svc.pid);
    const trips: Trips = { click: [], init: [], poll: [] };
    const outcomes = await paced(n, PACED_RATE_PER_S, (i) => install(target, displayId, list[i] as Device, trips));
    const usage = cpu.stop();
    const settled = outcomes.flatMap((o) => (o.kind === 'settled' ? [o] : []));
    // An install that never settled counts as the timeout (a lower bound), not as absent: leaving
    // it out would make a service that loses installs look fast.
    const lat = summarize(
      outcomes.flatMap((o) => (o.kind === 'settled' ? [o.ms] : o.kind === 'timeout' ? [SETTLE_TIMEOUT_MS] : [])),
    );
    const inorganic = settled.filter((o) => o.source === 'INORGANIC' && o.campaign === displayId).length;
    const tally: Record<string, number> = {};
    for (const o of outcomes) {
      const key = o.kind === 'settled' ? `settled ${o.source}` : o.kind;
      tally[key] = (tally[key] ?? 0) + 1;
    }
    h.progress(
      `attribution: ${n} installs, settled p50 ${round(lat.p50, 1)} ms, p99 ${round(lat.p99, 1)} ms; ${JSON.stringify(tally)}; ${cpuLine(usage, 'service', 'postgres')}`,
    );
    // Installs that timed out are still being retried: let them finish before the next workload.
    const backlog = await waitForBacklog(target.svc.pgUrl, target.project.projectId, BACKLOG_TIMEOUT_MS);
    h.progress(
      `attribution: backlog ${backlog.drained ? 'cleared' : `NOT cleared (${backlog.pendingInstalls} installs pending)`} after ${round(backlog.seconds, 1)} s`,
    );
    return {
      measures: {
        p50: { value: lat.p50, ceiling: POLL_MS + rtt.p50 },
        p99: { value: lat.p99, ceiling: POLL_MS + rtt.p99 },
        inorganic: { value: inorganic, ceiling: n },
      },
      details: {
        installs: n,
        rate_per_s: PACED_RATE_PER_S,
        display_id: displayId,
        outcomes: tally,
        settle_ms: lat,
        round_trip_ms: { click: summarize(trips.click), init: summarize(trips.init), poll: summarize(trips.poll) },
        cpu_cores: cpuDetails(usage, 'service', 'embedded_postgres'),
        backlog_after: backlog,
        polls_mean: round(settled.reduce((s, o) => s + o.polls, 0) / Math.max(1, settled.length), 2),
        rtt_ceiling_ms: rtt.details,
      },
    };
  },
};
