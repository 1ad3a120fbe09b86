// Workload `ingest`: the client ingest mix over real HTTP — init 20 %, capture-event 55 %,
// capture-payment 10 % (unique payment_id), trigger 10 %, attribution-data 5 % — against the bare
// POST ceiling (600-byte JSON; the mix's bodies are SDK-shaped and about that size, the mean is in
// the details). Closed loop at autocannon's max rate (the harness's connections), not a latency-
// bounded rate: p99 is what that load gives. Users are registered first (init + trigger, Rule 1) so
// every event and payment is stored; each request gets fresh ids (a new install per init, a unique
// event_id per event, a unique payment_id per payment) from setupRequest. After the service stopped,
// the measured window's events and payments (found by their id prefix) are counted in ClickHouse:
// stored should equal accepted (up to the requests cut off in flight when the window closed, which
// the service may still have stored) and no id should be stored twice.
import type autocannon from 'autocannon';
import autocannonRun from 'autocannon';
import { waitForBacklog } from '../lib/facts.ts';
import { cpuDetails, cpuLine, watchCpu } from '../lib/layout.ts';
import type { Rng } from '../lib/seed.ts';
import { ANDROID_AGENTS } from '../lib/seed.ts';
import { round, SampleBuffer, summarize } from '../lib/stats.ts';
import type { BenchTarget, Workload } from '../lib/workload.ts';

const DRAIN_TIMEOUT_MS = 180_000;
const PREREGISTER_IN_FLIGHT = 16;

type Kind = 'init' | 'event' | 'payment' | 'trigger' | 'attribution';
const PATHS: Record<Kind, string> = {
  init: '/api/client/init',
  event: '/api/client/capture-event',
  payment: '/api/client/capture-payment',
  trigger: '/api/client/trigger',
  attribution: '/api/client/attribution-data',
};
/** 20 slots in the mix's shares, interleaved: 4 init, 11 event, 2 payment, 2 trigger, 1 attribution-data. */
const MIX: Kind[] = [
  'event',
  'init',
  'event',
  'event',
  'payment',
  'event',
  'trigger',
  'event',
  'init',
  'event',
  'attribution',
  'event',
  'init',
  'event',
  'payment',
  'event',
  'trigger',
  'event',
  'init',
  'event',
];

export type User = { installId: string; userId: string; gaid: string; agent: string };

type Tally = { sent: number; answered: number; ok: number; status: Record<string, number> };
/** autocannon's per-connection context: the id of the request in flight on that connection. */
type Conn = { inFlightId?: string };

function deviceData(u: Pick<User, 'gaid'>) {
  return {
    gaid: u.gaid,
    system_version: '14',
    device_name: 'samsung SM-S911B',
    device_model: 'SM-S911B',
    screen: '1080x2340',
    locale: 'en_US',
    timezone: 'Europe/Berlin',
    carrier: 'Vodafone',
  };
}

/** SDK-shaped bodies (real-clients §4); `n` makes the ids of this request unique. */
function bodyOf(kind: Kind, token: string, u: User, n: string, rng: Rng): string {
  const ids = { token, platform: 'ANDROID', install_instance_id: u.installId };
  switch (kind) {
    case 'init':
      return JSON.stringify({
        token,
        platform: 'ANDROID',
        install_instance_id: rng.uuid(),
        app_version: '3.12.0',
        package_version: '3.8.1',
        device_data: { ...deviceData(u), install_ref: 'utm_source=google-play&utm_medium=organic' },
      });
    case 'event':
      return JSON.stringify({
        ...ids,
        event_name: 'add_to_cart',
        event_id: n,
        event_data: {
          sku: `sku_${rng.hex(6)}`,
          price: 12.5,
          currency: 'EUR',
          quantity: 1,
          category: 'apparel/shoes',
          screen: 'ProductDetails',
        },
        device_data: deviceData(u),
      });
    case 'payment':
      return JSON.stringify({
        ...ids,
        amount: 19.99,
        type: 'ONE_TIME',
        status: 'PAYMENT_COMPLETED',
        payment_id: n,
        event_data: { content_ids: [`sku_${rng.hex(6)}`], currency: 'EUR', order_id: `order_${rng.hex(10)}` },
        data: { device_data: deviceData(u) },
      });
    case 'trigger':
      return JSON.stringify({
        ...ids,
        user_data: {
          id: u.userId,
          name: 'Bench User',
          email: `${u.userId}@bench.example.com`,
          phone: '+4915112345678',
          is_first_time_user: false,
        },
        data: { device_data: deviceData(u) },
      });
    case 'attribution':
      return JSON.stringify(ids);
  }
}

function headers(host: string, agent: string): Record<string, string> {
  return { host, 'content-type': 'application/json', 'user-agent': agent };
}

/** init + trigger for each user, a few in flight, so events and payments are stored (Rule 1). */
export async function preregister(t: BenchTarget, users: User[], rng: Rng): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < users.length) {
      const u = users[next++] as User;
      for (const kind of ['init', 'trigger'] as const) {
        const body =
          kind === 'init'
            ? JSON.stringify({
                token: t.project.token,
                platform: 'ANDROID',
                install_instance_id: u.installId,
                app_version: '3.12.0',
                device_data: deviceData(u),
              })
            : bodyOf('trigger', t.project.token, u, '', rng);
        const res = await fetch(`${t.svc.url}${PATHS[kind]}`, {
          method: 'POST',
          headers: headers(t.svc.host, u.agent),
          body,
        });
        await res.arrayBuffer();
        if (res.status >= 300) {
          throw new Error(`ingest: pre-registering ${kind} answered ${res.status}`);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: PREREGISTER_IN_FLIGHT }, worker));
}

export type MixResult = {
  durationS: number;
  tally: Record<Kind, Tally>;
  latency: ReturnType<typeof summarize>;
  bodyBytes: number;
  bodies: number;
  /** Event and payment ids sent but unanswered when the window closed (the service may still store them). */
  cutOff: string[];
  errors: number;
  timeouts: number;
};

export function runMix(
  t: BenchTarget,
  users: User[],
  rng: Rng,
  idPrefix: string,
  connections: number,
  durationS: number,
): Promise<MixResult> {
  const tally = Object.fromEntries(
    (Object.keys(PATHS) as Kind[]).map((k) => [k, { sent: 0, answered: 0, ok: 0, status: {} }]),
  ) as Record<Kind, Tally>;
  const samples = new SampleBuffer();
  let counter = 0;
  let bodyBytes = 0;
  let bodies = 0;
  const conns = new Set<Conn>();
  const requests: autocannon.Request[] = MIX.map((kind) => ({
    method: 'POST',
    path: PATHS[kind],
    headers: headers(t.svc.host, ANDROID_AGENTS[0]),
    setupRequest: (req: autocannon.Request, context: object) => {
      counter += 1;
      const u = users[counter % users.length] as User;
      const id = `${idPrefix}${counter}`;
      const body = bodyOf(kind, t.project.token, u, id, rng);
      const conn = context as Conn;
      conn.inFlightId = kind === 'event' || kind === 'payment' ? id : undefined;
      conns.add(conn);
      tally[kind].sent += 1;
      bodyBytes += Buffer.byteLength(body);
      bodies += 1;
      return { ...req, body, headers: headers(t.svc.host, u.agent) };
    },
    onResponse: (status: number, _body: string, context: object) => {
      (context as Conn).inFlightId = undefined;
      const k = tally[kind];
      k.answered += 1;
      k.status[status] = (k.status[status] ?? 0) + 1;
      if (status >= 200 && status < 300) {
        k.ok += 1;
      }
    },
  }));
  return new Promise((resolve, reject) => {
    const instance = autocannonRun(
      { url: t.svc.url, connections, pipelining: 1, duration: durationS, requests, timeout: 10 },
      (err, result) =>
        err
          ? reject(err)
          : resolve({
              durationS: result.duration,
              tally,
              latency: summarize(samples.values()),
              bodyBytes,
              bodies,
              cutOff: [...conns].flatMap((c) => (c.inFlightId ? [c.inFlightId] : [])),
              errors: result.errors,
              timeouts: result.timeouts,
            }),
    );
    instance.on('response', (_c, status, _b, ms) => {
      if (status >= 200 && status < 300) {
        samples.push(ms);
      }
    });
  });
}

export const workload: Workload = {
  name: 'ingest',
  summary:
    'client ingest mix (init 20 %, capture-event 55 %, capture-payment 10 %, trigger 10 %, attribution-data 5 %) at max rate vs the bare POST ceiling; events and payments stored vs accepted',
  order: 15,
  metrics: [
    {
      id: 'rps',
      label: 'ingest mix 2xx/s (max rate)',
      unit: 'req/s',
      better: 'higher',
      ceiling: 'bare POST',
      target: { on: 'ratio', atLeast: 0.4, text: 'durable ingest ≥ 0.40× ceiling' },
    },
    {
      id: 'rps_durable',
      label: 'ingest mix 2xx/s vs a durable append',
      unit: 'req/s',
      better: 'higher',
      ceiling: 'POST appended to a local file, group fdatasync',
    },
    { id: 'p50', label: 'ingest mix p50', unit: 'ms', better: 'lower', ceiling: 'bare POST p50' },
    { id: 'p99', label: 'ingest mix p99', unit: 'ms', better: 'lower', ceiling: 'bare POST p99' },
    { id: 'non2xx', label: 'ingest non-2xx', unit: 'responses', better: 'lower' },
    {
      id: 'events_stored',
      label: 'events stored',
      unit: 'events',
      better: 'higher',
      ceiling: 'accepted (2xx)',
      target: { on: 'ratio', atLeast: 1, text: 'none lost (≥ 1.00)' },
    },
    {
      id: 'events_dups',
      label: 'events stored twice',
      unit: 'rows',
      better: 'lower',
      target: { on: 'value', atMost: 0, text: '0 duplicates' },
    },
    {
      id: 'payments_stored',
      label: 'payments stored',
      unit: 'payments',
      better: 'higher',
      ceiling: 'accepted (2xx)',
      target: { on: 'ratio', atLeast: 1, text: 'none lost (≥ 1.00)' },
    },
    {
      id: 'payments_dups',
      label: 'payments stored twice',
      unit: 'rows',
      better: 'lower',
      target: { on: 'value', atMost: 0, text: '0 duplicates' },
    },
  ],
  async run(h) {
    const target = await h.service();
    const { svc, project } = target;
    const rng = h.rng('users');
    const users: User[] = Array.from({ length: h.quick ? 100 : 400 }, (_, i) => ({
      installId: rng.uuid(),
      userId: `bench-u${h.rep}-${i}-${rng.hex(6)}`,
      gaid: rng.uuid(),
      agent: rng.pick(ANDROID_AGENTS),
    }));
    const t0 = performance.now();
    await preregister(target, users, rng);
    h.progress(
      `ingest: ${users.length} users registered (init + trigger) in ${round((performance.now() - t0) / 1000, 1)} s`,
    );
    const ceiling = await h.ceiling('post');
    const durable = await h.ceiling('post_durable');
    const tag = `bench-${h.runId}-${h.rep}`;
    if (h.load.warmupS > 0) {
      await runMix(target, users, h.rng('warmup'), `${tag}-w-`, h.load.connections, h.load.warmupS);
    }
    const measuredPrefix = `${tag}-m-`;
    const cpu = watchCpu(svc.pid);
    const r = await runMix(target, users, h.rng('mix'), measuredPrefix, h.load.connections, h.load.durationS);
    const usage = cpu.stop();
    const kinds = Object.keys(PATHS) as Kind[];
    const ok = kinds.reduce((s, k) => s + r.tally[k].ok, 0);
    const answered = kinds.reduce((s, k) => s + r.tally[k].answered, 0);
    const okPerS = ok / r.durationS;
    const meanBody = round(r.bodyBytes / Math.max(1, r.bodies), 0);
    h.progress(
      `ingest: ${Math.round(okPerS)} 2xx/s (${round(okPerS / ceiling.okPerS, 2)}× bare POST), p50 ${round(r.latency.p50, 2)} ms, p99 ${round(r.latency.p99, 2)} ms, ${answered - ok} non-2xx, mean body ${meanBody} B; ${cpuLine(usage, 'service', 'postgres')}`,
    );
    const drain = await waitForBacklog(svc.pgUrl, project.projectId, DRAIN_TIMEOUT_MS);
    h.progress(`ingest: backlog ${drain.drained ? 'drained' : 'NOT drained'} in ${round(drain.seconds, 1)} s`);
    const acceptedEvents = r.tally.event.ok;
    const acceptedPayments = r.tally.payment.ok;
    const inFlight = (k: Kind) => r.tally[k].sent - r.tally[k].answered;
    return {
      measures: {
        rps: { value: okPerS, ceiling: ceiling.okPerS },
        rps_durable: { value: okPerS, ceiling: durable.okPerS },
        p50: { value: r.latency.p50, ceiling: ceiling.p50 },
        p99: { value: r.latency.p99, ceiling: ceiling.p99 },
        non2xx: { value: answered - ok },
      },
      details: {
        mode: 'closed loop, autocannon max rate',
        connections: h.load.connections,
        duration_s: r.durationS,
        users: users.length,
        mean_body_bytes: meanBody,
        by_route: r.tally,
        errors: r.errors,
        timeouts: r.timeouts,
        latency_ms: r.latency,
        cpu_cores: cpuDetails(usage, 'service', 'embedded_postgres'),
        backlog_after: drain,
      },
      afterStop: async (facts) => {
        // Requests cut off in flight when the window closed were never counted as accepted: their
        // ids are left out of the count, so stored must equal accepted exactly.
        const ev = await facts.countByPrefix('events', 'event_id', project.projectId, measuredPrefix, r.cutOff);
        const pay = await facts.countByPrefix('payments', 'payment_id', project.projectId, measuredPrefix, r.cutOff);
        const check = (name: string, c: { rows: number; unique: number }, accepted: number, cut: number) => {
          const same = c.unique === accepted && c.rows === c.unique;
          return `${name} stored ${c.unique} = accepted ${accepted}? ${same ? 'yes' : 'NO'} (duplicates ${c.rows - c.unique}; ${cut} cut off in flight, left out)`;
        };
        h.progress(
          `ingest count-check rep ${h.rep}: ${check('events', ev, acceptedEvents, inFlight('event'))}; ${check('payments', pay, acceptedPayments, inFlight('payment'))}`,
        );
        return {
          measures: {
            events_stored: { value: ev.unique, ceiling: acceptedEvents },
            events_dups: { value: ev.rows - ev.unique },
            payments_stored: { value: pay.unique, ceiling: acceptedPayments },
            payments_dups: { value: pay.rows - pay.unique },
          },
          details: {
            cut_off_ids: r.cutOff.length,
            count_check: {
              events: {
                accepted: acceptedEvents,
                cut_off_in_flight: inFlight('event'),
                rows: ev.rows,
                unique: ev.unique,
              },
              payments: {
                accepted: acceptedPayments,
                cut_off_in_flight: inFlight('payment'),
                rows: pay.rows,
                unique: pay.unique,
              },
            },
          },
        };
      },
    };
  },
};
