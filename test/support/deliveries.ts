// Helpers for the delivery tests: a registered user with contact data, a project connected to the
// fake Conversions API with mappings, reading delivery rows, and running the delivery job's domain
// step at a chosen clock.
import { randomUUID } from 'node:crypto';
import type { Deps } from '../../src/deps.ts';
import { type BatchOutcome, deliverBatch } from '../../src/domain/deliveries/deliver-batch.ts';
import { mapEvent } from '../../src/domain/deliveries/map-event.ts';
import { setMetaConnection } from '../../src/domain/deliveries/set-meta-connection.ts';
import { ANDROID_UA, attribute, post } from './client.ts';
import type { Harness, TestProject } from './harness.ts';

export const ACCESS_TOKEN = 'EAAGtesttoken1234567890abcdef';
export const DATASET_ID = '1234567890';
/** Harness env of the delivery tests: limits off, a fixed secrets key (tokens are sealed). */
export const deliveryEnv = (): Record<string, string> => ({
  RATE_LIMITS_ENABLED: 'false',
  SECRETS_KEY: 'ab'.repeat(32),
});

export type UserInfo = { userId: string; email?: string; phone?: string };

/** init (Android, UA and IP known) → attribution decided → trigger with the user's contact data. */
export async function registeredUser(h: Harness, p: TestProject, u: UserInfo): Promise<string> {
  const iid = randomUUID();
  const res = await post(
    h,
    'init',
    { token: p.token, platform: 'ANDROID', install_instance_id: iid, device_data: {} },
    { remoteAddress: '10.9.8.7', headers: { 'user-agent': ANDROID_UA } },
  );
  if (res.statusCode !== 202) {
    throw new Error(`init answered ${res.statusCode}`);
  }
  await attribute(h, p, iid);
  const t = await post(h, 'trigger', {
    token: p.token,
    platform: 'ANDROID',
    install_instance_id: iid,
    user_data: { id: u.userId, email: u.email, phone: u.phone },
    data: { device_data: {} },
    event: 'SIGNUP',
  });
  if (t.statusCode !== 200) {
    throw new Error(`trigger answered ${t.statusCode}: ${t.body}`);
  }
  return iid;
}

/** Active Meta connection with the usual mappings: add_to_cart, view_item, FIRST_PAYMENT, DEFAULT. */
export async function connectMeta(deps: Deps, p: TestProject, active = true): Promise<void> {
  await setMetaConnection(deps, p.project.id, {
    datasetId: DATASET_ID,
    accessToken: ACCESS_TOKEN,
    graphVersion: null,
    active,
  });
  await mapEvent(deps, p.project.id, { kind: 'event', name: 'add_to_cart', to: 'AddToCart' });
  await mapEvent(deps, p.project.id, { kind: 'event', name: 'view_item', to: 'ViewContent' });
  await mapEvent(deps, p.project.id, { kind: 'payment', name: 'FIRST_PAYMENT', to: 'Purchase' });
  await mapEvent(deps, p.project.id, { kind: 'payment', name: 'DEFAULT', to: 'Purchase' });
}

export const CART = {
  content_ids: ['sku-1', 'sku-2'],
  contents: [
    { id: 'sku-1', quantity: 2, item_price: 10.5 },
    { id: 'sku-2', quantity: 1, item_price: 28.99 },
  ],
  content_type: 'product',
  value: 49.99,
  currency: 'USD',
  num_items: 3,
};

export type DeliveryRow = {
  id: string;
  destination: string;
  event_key: string;
  status: string;
  attempts: number;
  last_error: string | null;
  payload: Record<string, unknown>;
};

export function deliveryRows(deps: Deps, p: TestProject): Promise<DeliveryRow[]> {
  // Ordered by the serial, not by the text the select gives it ('10' sorts before '9').
  return deps.sql<DeliveryRow[]>`SELECT id::text AS id, destination, event_key, status, attempts, last_error, payload
    FROM deliveries WHERE project_id = ${p.project.id} ORDER BY deliveries.id`;
}

/** Runs the delivery step for one destination at `atMs` (default: now). */
export function deliverAt(deps: Deps, p: TestProject, destination: string, atMs = Date.now()): Promise<BatchOutcome> {
  return deliverBatch({ ...deps, now: () => atMs }, { projectId: p.project.id, destination });
}

export type AttemptRow = { outcome: string; http_status: number; events: number; response: string };

export async function attemptRows(deps: Deps, p: TestProject): Promise<AttemptRow[]> {
  const rs = await deps.ch.query({
    query: `SELECT outcome, toUInt32(http_status) AS http_status, toUInt32(events) AS events, response
      FROM delivery_attempts WHERE project_id = {p:String} ORDER BY ts, attempt_id`,
    format: 'JSONEachRow',
    query_params: { p: p.project.id },
  });
  return rs.json();
}
