// Helpers for the audience export tests (test/http/v1/audiences-export.test.ts, test/cli/audiences.test.ts):
// users made through the real client routes (init with advertising ids, the attribution job, trigger
// with email and phone), events and payments captured at a chosen time (deps.now pinned) and moved to
// ClickHouse by the fact writer, and the export request.
import { randomUUID } from 'node:crypto';
import { attribute, flushFacts, init, post, type Res } from './client.ts';
import type { Harness, TestProject } from './harness.ts';
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
