// Helpers for the capture-event / capture-payment / remove-captured-payment tests: register a user
// through the real trigger route (Rules 1 and 3), and read the events and payments facts from
// ClickHouse with exact decimal text.
import { randomUUID } from 'node:crypto';
import type { Deps } from '../../src/deps.ts';
import { attribute, init, post } from './client.ts';
import { type Harness, newProject, type TestProject } from './harness.ts';

/** Signs the user up on the install through POST /api/client/trigger (the SDK's signup). */
export async function signUp(h: Harness, p: TestProject, installInstanceId: string, userId: string): Promise<void> {
  const res = await post(h, 'trigger', {
    token: p.token,
    platform: 'ANDROID',
    install_instance_id: installInstanceId,
    user_data: { id: userId },
    data: { device_data: {} },
    event: 'SIGNUP',
  });
  if (res.statusCode !== 200) {
    throw new Error(`trigger answered ${res.statusCode}: ${res.body}`);
  }
}

/** A new project with an initialised Android install, decided organic (facts of a pending install wait
 * in the outbox for its attribution), whose user trigger registered. */
export async function registeredUser(h: Harness, userId: string) {
  const p = await newProject(h.deps);
  const iid = randomUUID();
  const res = await init(h, p.token, { install_instance_id: iid });
  if (res.statusCode !== 202) {
    throw new Error(`init answered ${res.statusCode}: ${res.body}`);
  }
  await attribute(h, p, iid);
  await signUp(h, p, iid, userId);
  return { p, iid, userId };
}

export type EventFact = {
  event_id: string;
  install_instance_id: string;
  user_id: string;
  event_name: string;
  platform: string;
  amount: string;
  has_amount: number;
  event_data: string;
  campaign_id: number;
  display_id: string;
  project_tz: string;
};

export async function eventFacts(deps: Deps, p: TestProject): Promise<EventFact[]> {
  const rs = await deps.ch.query({
    query: `SELECT event_id, install_instance_id, user_id, event_name, platform, toString(amount) AS amount,
        has_amount, event_data, campaign_id, display_id, project_tz
      FROM events WHERE project_id = {p:String} ORDER BY ts, event_name, event_id`,
    format: 'JSONEachRow',
    query_params: { p: p.project.id },
  });
  return rs.json();
}

export type PaymentFactRow = {
  event_id: string;
  install_instance_id: string;
  user_id: string;
  payment_id: string;
  payment_row: string;
  type: string;
  status: string;
  amount: string;
  sign: number;
  ts: string;
  recorded_at: string;
  day: string;
  platform: string;
  campaign_id: number;
  display_id: string;
};

export async function paymentFacts(deps: Deps, p: TestProject): Promise<PaymentFactRow[]> {
  const rs = await deps.ch.query({
    query: `SELECT event_id, install_instance_id, user_id, payment_id, payment_row, type, status,
        toString(amount) AS amount, sign, toString(ts) AS ts, toString(recorded_at) AS recorded_at,
        toString(day) AS day, platform, campaign_id, display_id
      FROM payments WHERE project_id = {p:String} ORDER BY ts, sign DESC, payment_row`,
    format: 'JSONEachRow',
    query_params: { p: p.project.id },
  });
  return rs.json();
}

/** sum(amount * sign) of the project's payments (optionally of one user), as exact decimal text. */
export async function netRevenue(deps: Deps, p: TestProject, userId?: string): Promise<string> {
  const rs = await deps.ch.query({
    query: `SELECT toString(sum(amount * sign)) AS net FROM payments
      WHERE project_id = {p:String} AND ({u:String} = '' OR user_id = {u:String})`,
    format: 'JSONEachRow',
    query_params: { p: p.project.id, u: userId ?? '' },
  });
  const [row] = await rs.json<{ net: string }>();
  return row?.net ?? '0';
}

export async function outboxCount(deps: Deps, p: TestProject, table: string): Promise<number> {
  const [row] = await deps.sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM fact_outbox WHERE project_id = ${p.project.id} AND fact_table = ${table}`;
  return row?.n ?? 0;
}
