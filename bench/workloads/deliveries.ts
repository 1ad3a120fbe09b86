// Workload `deliveries`: Purchase deliveries per second to a fake Meta Conversions API (the bench's
// copy of test/support/fake-capi.ts, which checks what Meta checks; the service's
// META_GRAPH_BASE_URL points at it). The project gets a Meta connection and a payment-type →
// Purchase mapping through PUT /api/v1/connections/meta(/mappings); registered users (init +
// trigger, with email and phone, which the service must hash) send N mapped capture-payment
// requests, and the clock runs from the first request until the fake has accepted every one of
// them. The figure includes the delivery schedule's 5 s tick. Its ceiling is the fake's own rate:
// the same accepted request bodies posted back to it bare, one at a time as the delivery job sends
// them, in events/s. The connection is switched off at the end so later workloads send nothing.
import postgres from 'postgres';
import type { FakeCapi } from '../../test/support/fake-capi.ts';
import { capiSink } from '../lib/capi-sink.ts';
import { waitForBacklog } from '../lib/facts.ts';
import { sleep } from '../lib/probe.ts';
import { ANDROID_AGENTS, type Rng } from '../lib/seed.ts';
import { round } from '../lib/stats.ts';
import type { BenchTarget, Workload } from '../lib/workload.ts';

const IN_FLIGHT = 16;
const DELIVERY_TIMEOUT_MS = 90_000;
/** A payment type the ingest workload does not send, so only this workload's payments are mapped. */
const MAPPED_TYPE = 'RECURRING';

type User = { installId: string; userId: string };

async function call(url: string, method: 'PUT' | 'POST', body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', 'user-agent': ANDROID_AGENTS[0], ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text };
}

async function connect(t: BenchTarget, active: boolean): Promise<void> {
  const key = { 'service-key': t.project.serverKey };
  const c = await call(
    `${t.svc.url}/api/v1/connections/meta`,
    'PUT',
    { dataset_id: '1234567890123', access_token: 'EAABbenchAccessToken0123456789', graph_version: 'v21.0', active },
    key,
  );
  if (c.status !== 200) {
    throw new Error(`deliveries: PUT connections/meta answered ${c.status} ${c.text}`);
  }
  if (active) {
    const m = await call(
      `${t.svc.url}/api/v1/connections/meta/mappings`,
      'PUT',
      { mappings: [{ kind: 'payment', name: MAPPED_TYPE, to: 'Purchase' }] },
      key,
    );
    if (m.status !== 200) {
      throw new Error(`deliveries: PUT connections/meta/mappings answered ${m.status} ${m.text}`);
    }
  }
}

async function inParallel(n: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < n) {
      await task(next++);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}

function acceptedWithPrefix(fake: FakeCapi, prefix: string): { unique: number; total: number } {
  const ids = fake.accepted().filter((id) => id.startsWith(prefix));
  return { unique: new Set(ids).size, total: ids.length };
}

/** The fake's own rate: accepted request bodies posted back one at a time, in events/s. */
async function fakeCeiling(
  fake: FakeCapi,
  prefix: string,
  seconds: number,
): Promise<{ eventsPerS: number; requests: number }> {
  const sample = fake.requests.find((r) => r.status === 200 && r.eventIds.some((id) => id.startsWith(prefix)));
  if (!sample) {
    return { eventsPerS: Number.NaN, requests: 0 };
  }
  const body = JSON.stringify(sample.body);
  const before = fake.requests.length;
  let events = 0;
  let requests = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < seconds * 1000) {
    const res = await fetch(`${fake.url}${sample.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    await res.arrayBuffer();
    if (res.status === 200) {
      events += sample.eventIds.length;
    }
    requests += 1;
  }
  const perS = events / ((performance.now() - t0) / 1000);
  // The replayed requests are not deliveries: drop them from the fake's record.
  fake.requests.splice(before);
  return { eventsPerS: perS, requests };
}

type RowStates = { pending: number; byStatus: Record<string, number>; errors: Record<string, number> };

/** The service's delivery rows of this repetition, by status (and last error): why a Purchase did not arrive. */
async function deliveryRows(pgUrl: string, projectId: string, prefix: string): Promise<RowStates> {
  const sql = postgres(pgUrl, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<{ status: string; last_error: string | null; n: number }[]>`
      SELECT status, last_error, count(*)::int AS n FROM deliveries
      WHERE project_id = ${projectId} AND event_key LIKE ${`Purchase:${prefix}%`} GROUP BY 1, 2`;
    const out: RowStates = { pending: 0, byStatus: {}, errors: {} };
    for (const r of rows) {
      out.byStatus[r.status] = (out.byStatus[r.status] ?? 0) + r.n;
      if (r.last_error) {
        out.errors[r.last_error.slice(0, 160)] = r.n;
      }
    }
    out.pending = out.byStatus.pending ?? 0;
    return out;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

function users(rng: Rng, n: number, rep: number): User[] {
  return Array.from({ length: n }, (_, i) => ({ installId: rng.uuid(), userId: `bench-d${rep}-${i}-${rng.hex(6)}` }));
}

export const workload: Workload = {
  name: 'deliveries',
  summary:
    'mapped capture-payment → Purchase delivered to a fake Meta Conversions API, deliveries/s vs the fake’s bare rate',
  order: 30,
  metrics: [
    {
      id: 'per_s',
      label: 'Purchase deliveries/s (fake CAPI)',
      unit: 'event/s',
      better: 'higher',
      ceiling: "fake CAPI's bare rate, same bodies",
    },
    {
      id: 'delivered',
      label: 'Purchases delivered once',
      unit: 'events',
      better: 'higher',
      ceiling: 'payments accepted (201)',
      target: { on: 'ratio', atLeast: 1, text: 'all delivered (≥ 1.00)' },
    },
    {
      id: 'repeats',
      label: 'Purchases delivered twice',
      unit: 'events',
      better: 'lower',
      target: { on: 'value', atMost: 0, text: '0 repeats' },
    },
  ],
  async run(h) {
    const target = await h.service();
    const { svc, project } = target;
    const fake = await capiSink();
    const n = h.quick ? 500 : 5_000;
    const rng = h.rng('users');
    const list = users(rng, h.quick ? 50 : 200, h.rep);
    await connect(target, true);
    const token = project.token;
    await inParallel(list.length, async (i) => {
      const u = list[i] as User;
      const ids = { token, platform: 'ANDROID', install_instance_id: u.installId };
      const a = await call(`${svc.url}/api/client/init`, 'POST', { ...ids, app_version: '3.12.0' });
      const b = await call(`${svc.url}/api/client/trigger`, 'POST', {
        ...ids,
        user_data: { id: u.userId, email: `${u.userId}@bench.example.com`, phone: '+4915112345678' },
      });
      if (a.status !== 202 || b.status !== 200) {
        throw new Error(`deliveries: registering a user answered ${a.status} / ${b.status}`);
      }
    });
    const prefix = `bench-${h.runId}-d${h.rep}-`;
    const statuses: Record<string, number> = {};
    const t0 = performance.now();
    await inParallel(n, async (i) => {
      const u = list[i % list.length] as User;
      const sku = `sku_${rng.hex(6)}`;
      const r = await call(`${svc.url}/api/client/capture-payment`, 'POST', {
        token,
        platform: 'ANDROID',
        install_instance_id: u.installId,
        amount: 19.99,
        type: MAPPED_TYPE,
        status: 'PAYMENT_COMPLETED',
        payment_id: `${prefix}${i}`,
        event_data: {
          content_ids: [sku],
          contents: [{ id: sku, quantity: 1, item_price: 19.99 }],
          num_items: 1,
          content_type: 'product',
          currency: 'EUR',
        },
      });
      statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    });
    const sentS = (performance.now() - t0) / 1000;
    const accepted = statuses['201'] ?? 0;
    let got = acceptedWithPrefix(fake, prefix);
    let rows = await deliveryRows(svc.pgUrl, project.projectId, prefix);
    for (let k = 1; got.unique < accepted && performance.now() - t0 < DELIVERY_TIMEOUT_MS; k++) {
      await sleep(50);
      got = acceptedWithPrefix(fake, prefix);
      if (k % 40 === 0) {
        // Nothing left to send (rows invalid or dead): stop waiting.
        rows = await deliveryRows(svc.pgUrl, project.projectId, prefix);
        if (rows.pending === 0 && got.unique < accepted) {
          break;
        }
      }
    }
    const seconds = (performance.now() - t0) / 1000;
    await sleep(1000); // a late repeat would show up here
    got = acceptedWithPrefix(fake, prefix);
    const perS = got.unique / seconds;
    const capiRequests = fake.requests.filter((r) => r.eventIds.some((id) => id.startsWith(prefix)));
    const refused = capiRequests.filter((r) => r.status !== 200).length;
    rows = await deliveryRows(svc.pgUrl, project.projectId, prefix);
    await connect(target, false);
    const ceiling = await fakeCeiling(fake, prefix, h.quick ? 1 : 3);
    h.progress(
      `deliveries: ${got.unique}/${accepted} Purchases delivered in ${round(seconds, 1)} s (${round(perS, 0)}/s; captured in ${round(sentS, 1)} s, delivered ${round(seconds - sentS, 1)} s later) in ${capiRequests.length} CAPI requests (${refused} refused); fake's bare rate ${round(ceiling.eventsPerS, 0)} events/s; delivery rows ${JSON.stringify(rows.byStatus)}${Object.keys(rows.errors).length > 0 ? ` errors ${JSON.stringify(rows.errors)}` : ''}`,
    );
    const drain = await waitForBacklog(svc.pgUrl, project.projectId, 120_000);
    return {
      measures: {
        per_s: { value: perS, ceiling: ceiling.eventsPerS },
        delivered: { value: got.unique, ceiling: accepted },
        repeats: { value: got.total - got.unique },
      },
      details: {
        payments: n,
        capture_statuses: statuses,
        send_s: round(sentS, 2),
        delivered_s: round(seconds, 2),
        /** From the last capture answered to the last Purchase accepted (the schedule tick and the send). */
        delivered_after_capture_s: round(seconds - sentS, 2),
        capi_requests: capiRequests.length,
        capi_refused: refused,
        events_per_request: capiRequests.map((r) => r.eventIds.length),
        ceiling_requests: ceiling.requests,
        delivery_rows: rows,
        backlog_after: drain,
      },
    };
  },
};
