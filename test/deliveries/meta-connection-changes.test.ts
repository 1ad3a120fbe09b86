// Meta deliveries: changing the Meta connection or the mappings (PUT /api/v1/connections/meta and
// /mappings) while deliveries wait (README "Outgoing deliveries": "recorded while the connection is
// active"; deliver-batch: "Connection removed or switched off while rows waited: they stay pending
// until it is back"). Nothing is sent while the connection is off, nothing with a replaced token,
// facts recorded while off are never sent, and a row keeps the standard event it was recorded as.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post } from '../support/client.ts';
import {
  CART,
  connectMeta,
  DATASET_ID,
  deliverAt,
  deliveryEnv,
  deliveryRows,
  registeredUser,
} from '../support/deliveries.ts';
import { FakeCapi } from '../support/fake-capi.ts';
import { newProject, type TestProject, useHarness } from '../support/harness.ts';

const fake = new FakeCapi();
const env = deliveryEnv();
beforeAll(async () => {
  env.META_GRAPH_BASE_URL = await fake.start();
});
afterAll(() => fake.stop());
const h = useHarness({ env });

const NEW_TOKEN = 'EAAGrotatedtoken0987654321zyxw';

const put = (p: TestProject, url: string, payload: object) =>
  h().app.inject({ method: 'PUT', url: `/api/v1${url}`, headers: p.headers, payload });
const setConnection = (p: TestProject, body: Record<string, unknown>) =>
  put(p, '/connections/meta', { dataset_id: DATASET_ID, access_token: NEW_TOKEN, ...body });

async function withPending(tag: string, n = 2) {
  const p = await newProject(h().deps);
  await connectMeta(h().deps, p);
  const iid = await registeredUser(h(), p, { userId: `u-${tag}`, email: 'c@d.io' });
  const ids = Array.from({ length: n }, (_, i) => `${tag}-${i}-${p.project.id.slice(0, 6)}`);
  for (const id of ids) {
    await capture(p, iid, id);
  }
  return { p, iid, ids };
}

const capture = (p: TestProject, iid: string, id: string, name = 'add_to_cart') =>
  post(h(), 'capture-event', {
    token: p.token,
    platform: 'ANDROID',
    install_instance_id: iid,
    event_name: name,
    event_id: id,
    event_data: CART,
  });
const requestsOf = (ids: string[]) => fake.requests.filter((r) => r.eventIds.some((id) => ids.includes(id)));

describe('switching the connection off and on', () => {
  it('when the connection is switched off with rows pending, then nothing is sent, facts meanwhile are not queued, and after switching on with a new token the pending rows go with the new token', async () => {
    const { p, iid, ids } = await withPending('off');
    expect((await setConnection(p, { active: false })).statusCode).toBe(200);
    const t0 = Date.now();

    expect(await deliverAt(h().deps, p, 'meta', t0)).toMatchObject({ sent: 0, dead: 0, retry: false });
    await capture(p, iid, `while-off-${p.project.id.slice(0, 6)}`);
    expect(requestsOf(ids)).toEqual([]);

    expect((await setConnection(p, { active: true })).statusCode).toBe(200);
    // Rows claimed while the connection was off stay leased for the claim's minute.
    await deliverAt(h().deps, p, 'meta', t0 + 61_000);

    expect(requestsOf(ids).map((r) => [r.status, r.body.access_token, [...r.eventIds].sort()])).toEqual([
      [200, NEW_TOKEN, [...ids].sort()],
    ]);
    expect((await deliveryRows(h().deps, p)).map((r) => [r.event_key.split(':')[1], r.status, r.attempts])).toEqual(
      ids.map((id) => [id, 'sent', 1]),
    );
  });

  it('when the token and graph version are replaced with rows pending, then the rows go with the new token to the new version only', async () => {
    const { p, ids } = await withPending('rotate');
    expect((await setConnection(p, { active: true, graph_version: 'v23.0' })).statusCode).toBe(200);

    await deliverAt(h().deps, p, 'meta');

    expect(requestsOf(ids).map((r) => [r.path, r.body.access_token])).toEqual([
      [`/v23.0/${DATASET_ID}/events`, NEW_TOKEN],
    ]);
  });
});

describe('mapping changes', () => {
  it('when add_to_cart is remapped to ViewContent with one row pending, then the pending row is sent as recorded (AddToCart) and the next one as ViewContent', async () => {
    const { p, iid, ids } = await withPending('remap', 1);
    const res = await put(p, '/connections/meta/mappings', {
      mappings: [{ kind: 'event', name: 'add_to_cart', to: 'ViewContent' }],
    });
    expect(res.statusCode).toBe(200);
    const next = `remap-next-${p.project.id.slice(0, 6)}`;
    await capture(p, iid, next);

    await deliverAt(h().deps, p, 'meta');

    const sent = requestsOf([...ids, next]).flatMap((r) => r.body.data as { event_id: string; event_name: string }[]);
    expect(sent.map((e) => [e.event_id, e.event_name])).toEqual([
      [ids[0], 'AddToCart'],
      [next, 'ViewContent'],
    ]);
  });
});
