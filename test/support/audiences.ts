// Helpers for the audience export tests (test/http/v1/audiences-*.test.ts, test/cli/audiences.test.ts):
// users made through the real client routes (init with advertising ids, the attribution job, trigger
// with email and phone), events and payments captured at a chosen time (deps.now pinned) and moved to
// ClickHouse by the fact writer, and the export request. For segments past a page (5,000 users),
// bulkProject writes users and facts straight to the stores; failingAfter makes ClickHouse fail
// between pages.
import { randomUUID } from 'node:crypto';
import type { Deps } from '../../src/deps.ts';
import type { ClickHouseClient } from '../../src/store/clickhouse/client.ts';
import { attribute, flushFacts, init, post, type Res } from './client.ts';
import { type Harness, newProject, type TestProject } from './harness.ts';
import { event, insertFacts, newInstall } from './report-facts.ts';
import { at } from './users.ts';

export type SeedUser = {
  userId: string;
  email?: string;
  phone?: string;
  gaid?: string;
  idfa?: string;
  platform?: 'ANDROID' | 'IOS';
  /** An install already made (attributedInstall): trigger registers the user on it. */
  iid?: string;
  /** When the install's last app open happened (init's clock); default now. */
  lastOpen?: string;
};

/** A registered user: init (unless `iid` is given), decided, then trigger with email and phone. */
export async function seedUser(h: Harness, p: TestProject, u: SeedUser): Promise<string> {
  const platform = u.platform ?? 'ANDROID';
  let iid = u.iid;
  if (iid === undefined) {
    iid = randomUUID();
    const body = { install_instance_id: iid, platform, device_data: { gaid: u.gaid, idfa: u.idfa } };
    const open = () => init(h, p.token, body);
    const res = u.lastOpen ? await at(h, Date.parse(u.lastOpen), open) : await open();
    if (res.statusCode !== 202) {
      throw new Error(`init answered ${res.statusCode}: ${res.body}`);
    }
    await attribute(h, p, iid);
  }
  const res = await post(h, 'trigger', {
    token: p.token,
    platform,
    install_instance_id: iid,
    user_data: { id: u.userId, email: u.email, phone: u.phone },
    data: { device_data: {} },
  });
  if (res.statusCode !== 200) {
    throw new Error(`trigger answered ${res.statusCode}: ${res.body}`);
  }
  return iid;
}

/** The server-side twins (POST /api/v1/capture-event, /capture-payment) answer 201 when they store. */
function serverCapture(h: Harness, p: TestProject, route: string, iso: string, body: Record<string, unknown>) {
  return at(h, Date.parse(iso), async () => {
    const res = await h.app.inject({ method: 'POST', url: `/api/v1/${route}`, headers: p.headers, payload: body });
    if (res.statusCode !== 201) {
      throw new Error(`${route} answered ${res.statusCode}: ${res.body}`);
    }
  });
}

/** An event of the user at `iso` (the server clock pinned there). */
export function eventAt(h: Harness, p: TestProject, userId: string, name: string, iso: string): Promise<void> {
  return serverCapture(h, p, 'capture-event', iso, { user_id: userId, event_name: name });
}

/** A payment of the user at `iso`; returns its payment_id (for a removal). */
export async function paymentAt(
  h: Harness,
  p: TestProject,
  userId: string,
  iso: string,
  o: { type?: string; status?: string } = {},
): Promise<string> {
  const paymentId = randomUUID();
  await serverCapture(h, p, 'capture-payment', iso, {
    user_id: userId,
    payment_id: paymentId,
    amount: 9.99,
    type: o.type ?? 'DEFAULT',
    status: o.status ?? 'PAYMENT_COMPLETED',
  });
  return paymentId;
}

/** The facts written so far, moved to ClickHouse as the fact writer does. */
export const landFacts = (h: Harness): Promise<void> => flushFacts(h);

/** GET /api/v1/audiences/export with the project's server key. */
export function exportRequest(h: Harness, p: TestProject, query: Record<string, string>): Promise<Res> {
  return h.app.inject({ method: 'GET', url: '/api/v1/audiences/export', query, headers: p.headers }) as Promise<Res>;
}

/** `ch`, whose queries fail (as a refused connection) once `ok` of them went through. */
export function failingAfter(ch: ClickHouseClient, ok: number): ClickHouseClient {
  let calls = 0;
  return new Proxy(ch, {
    get(target, prop, receiver) {
      if (prop === 'query') {
        return (params: Parameters<ClickHouseClient['query']>[0]) => {
          calls += 1;
          return calls > ok ? Promise.reject(new Error('connect ECONNREFUSED')) : target.query(params);
        };
      }
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

/** The user id of bulkProject's i-th user (from 1): bulk-00001, … */
export const bulkUserId = (i: number): string => `bulk-${String(i).padStart(5, '0')}`;

/** A project with `n` registered users (bulk-i@example.com, no phone or ad id) who did `purchase` on 2025-04-10. */
export async function bulkProject(deps: Deps, n: number): Promise<TestProject> {
  const p = await newProject(deps);
  await deps.sql`
    INSERT INTO app_users (project_id, user_id, email, install_instance_id)
    SELECT ${p.project.id}, 'bulk-' || lpad(i::text, 5, '0'), 'bulk-' || i || '@example.com', 'bulk-install'
    FROM generate_series(1, ${n}) AS i`;
  const install = newInstall({ campaignId: 0 }, '2025-04-10');
  const rows = Array.from({ length: n }, (_, i) => event(p, install, bulkUserId(i + 1), 'purchase', '2025-04-10'));
  await insertFacts(deps, 'events', rows);
  return p;
}
