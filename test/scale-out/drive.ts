// Drives the SDK's flow (link click → init with the Play referrer → trigger → event → payment) over
// real HTTP against an API process, and reads back what reached ClickHouse (through the front).
import { randomUUID } from 'node:crypto';
import type postgres from 'postgres';
import { addStoreListing } from '../../src/domain/projects/add-store-listing.ts';
import type { Sql } from '../../src/store/postgres/pool.ts';
import type { Front } from '../support/ch-front.ts';

export const ANDROID_UA =
  'Mozilla/5.0 (Linux; Android 14; SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36';

export type Device = { iid: string; userId: string; eventId: string; paymentId: string; clickId?: string };

export async function createCampaign(
  baseUrl: string,
  sql: postgres.Sql,
  projectId: string,
  serverKey: string,
): Promise<{ displayId: string; id: number }> {
  const play = await addStoreListing({ sql: sql as unknown as Sql }, projectId, {
    name: 'Play',
    platform: 'ANDROID',
    url: 'https://play.google.com/store/apps/details?id=com.example.app',
  });
  const res = await fetch(`${baseUrl}/api/v1/create-campaign`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'service-key': serverKey },
    body: JSON.stringify({ name: 'Spring', deeplink: 'myapp://promo', store_listing_ids: [play.id] }),
  });
  const text = await res.text();
  if (res.status !== 201) {
    throw new Error(`create-campaign ${res.status}: ${text}`);
  }
  const data = (JSON.parse(text) as { data: { display_id: string; id: number } }).data;
  return { displayId: data.display_id, id: data.id };
}

export async function click(baseUrl: string, displayId: string): Promise<{ clickId: string; referrer: string }> {
  const res = await fetch(`${baseUrl}/${displayId}`, {
    redirect: 'manual',
    headers: { host: 'attr.test', 'user-agent': ANDROID_UA },
  });
  await res.text();
  if (res.status !== 302) {
    throw new Error(`link answered ${res.status}`);
  }
  const referrer = new URL(String(res.headers.get('location'))).searchParams.get('referrer') ?? '';
  return { clickId: new URLSearchParams(referrer).get('lr_click_id') ?? '', referrer };
}

export async function clientPost(
  baseUrl: string,
  path: string,
  body: unknown,
): Promise<{ status: number; text: string }> {
  const res = await fetch(`${baseUrl}/api/client/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': ANDROID_UA },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  return { status: res.status, text: await res.text() };
}

/** One device's whole flow; throws on any non-2xx answer. */
export async function deviceFlow(baseUrl: string, token: string, displayId: string): Promise<Device> {
  const { clickId, referrer } = await click(baseUrl, displayId);
  const d: Device = {
    iid: randomUUID(),
    userId: `u-${randomUUID()}`,
    eventId: `ev-${randomUUID()}`,
    paymentId: `pay-${randomUUID()}`,
    clickId,
  };
  const base = { token, platform: 'ANDROID', install_instance_id: d.iid };
  const steps: [string, Record<string, unknown>][] = [
    ['init', { ...base, device_data: { install_ref: referrer, gaid: randomUUID(), system_version: '14' } }],
    ['trigger', { ...base, user_data: { id: d.userId } }],
    ['capture-event', { ...base, event_name: 'level_up', event_id: d.eventId, event_data: { level: 3 } }],
    ['capture-payment', { ...base, amount: 4.99, payment_id: d.paymentId, type: 'ONE_TIME' }],
  ];
  for (const [path, body] of steps) {
    const r = await clientPost(baseUrl, path, body);
    if (r.status < 200 || r.status >= 300) {
      throw new Error(`${path} answered ${r.status}: ${r.text}`);
    }
  }
  return d;
}

export type Counts = Record<
  'clicks' | 'installs' | 'attributions' | 'signups' | 'events' | 'payments',
  Map<string, number>
>;

const QUERIES: Record<keyof Counts, string> = {
  clicks: 'SELECT toString(click_id) AS k, toUInt32(count()) AS n FROM clicks WHERE project_id = {p:String} GROUP BY k',
  installs: `SELECT toString(install_instance_id) AS k, toUInt32(count()) AS n FROM install_events
    WHERE project_id = {p:String} AND kind = 'install' GROUP BY k`,
  attributions: `SELECT toString(install_instance_id) AS k, toUInt32(count()) AS n FROM attributions
    WHERE project_id = {p:String} GROUP BY k`,
  signups: 'SELECT user_id AS k, toUInt32(count()) AS n FROM signups WHERE project_id = {p:String} GROUP BY k',
  events: 'SELECT event_id AS k, toUInt32(count()) AS n FROM events WHERE project_id = {p:String} GROUP BY k',
  payments: `SELECT payment_id AS k, toUInt32(count()) AS n FROM payments
    WHERE project_id = {p:String} AND sign = 1 GROUP BY k`,
};

export async function chCounts(front: Front, projectId: string): Promise<Counts> {
  const out = {} as Counts;
  for (const [t, q] of Object.entries(QUERIES) as [keyof Counts, string][]) {
    const rows = await front.rows<{ k: string; n: number }>(q, { p: projectId });
    out[t] = new Map(rows.map((r) => [r.k, Number(r.n)]));
  }
  return out;
}

/** Every device's facts once in each table, and nothing else. Returns the problems found. */
export function checkExactlyOnce(counts: Counts, devices: Device[]): string[] {
  const problems: string[] = [];
  const expectOnce = (t: keyof Counts, key: string | undefined) => {
    const n = key ? (counts[t].get(key) ?? 0) : 0;
    if (n !== 1) {
      problems.push(`${t} ${key}: ${n}`);
    }
  };
  for (const d of devices) {
    expectOnce('clicks', d.clickId);
    expectOnce('installs', d.iid);
    expectOnce('attributions', d.iid);
    expectOnce('signups', d.userId);
    expectOnce('events', d.eventId);
    expectOnce('payments', d.paymentId);
  }
  for (const t of Object.keys(counts) as (keyof Counts)[]) {
    if (counts[t].size !== devices.length) {
      problems.push(`${t}: ${counts[t].size} keys for ${devices.length} devices`);
    }
  }
  return problems;
}

/** Installs still pending and outbox rows of the project. */
export async function backlog(sql: postgres.Sql, projectId: string): Promise<{ pending: number; outbox: number }> {
  const [r] = await sql<{ pending: number; outbox: number }[]>`
    SELECT
      (SELECT count(*)::int FROM installs WHERE project_id = ${projectId} AND attribution_status = 'pending') AS pending,
      (SELECT count(*)::int FROM fact_outbox WHERE project_id = ${projectId}) AS outbox`;
  return r ?? { pending: -1, outbox: -1 };
}
