// Project webhooks (product notes, "Webhooks"): install and signup notifications are queued with
// the fact that decides them, POSTed to the project's URL, signed with HMAC-SHA256 over
// "<timestamp>.<body>" (x-signature: t=…,v1=…), retried on 5xx with the same body and delivery id,
// not retried on other 4xx, and logged like every delivery.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWebhook } from '../../src/domain/deliveries/add-webhook.ts';
import { attemptRows, deliverAt, deliveryEnv, deliveryRows, registeredUser } from '../support/deliveries.ts';
import { FakeWebhook } from '../support/fake-webhook.ts';
import { newProject, useHarness } from '../support/harness.ts';

const receiver = new FakeWebhook();
beforeAll(() => receiver.start());
afterAll(() => receiver.stop());
const h = useHarness({ env: deliveryEnv() });

async function hooked(events = ['install', 'signup']) {
  const p = await newProject(h().deps);
  const hook = await addWebhook(h().deps, p.project.id, { url: receiver.url, events });
  const iid = await registeredUser(h(), p, { userId: 'u-7', email: 'ann@example.com', phone: '+15551234567' });
  return { p, hook, iid, destination: `webhook:${hook.id}` };
}

const hitsFor = (iid: string) => receiver.hits.filter((x) => x.body.includes(iid));

describe('webhooks', () => {
  it('when an install is attributed and its user signs up, then both are POSTed, signed over the body', async () => {
    const { p, hook, iid, destination } = await hooked();
    expect((await deliveryRows(h().deps, p)).map((r) => [r.destination, r.event_key, r.status])).toEqual([
      [destination, `install:${iid}:`, 'pending'],
      [destination, `signup:${iid}:u-7`, 'pending'],
    ]);

    expect(await deliverAt(h().deps, p, destination)).toMatchObject({ claimed: 2, sent: 2 });

    const hits = hitsFor(iid);
    expect(hits.map((x) => JSON.parse(x.body).event_type)).toEqual(['install', 'signup']);
    for (const hit of hits) {
      const [, t, mac] = /^t=(\d+),v1=([a-f0-9]{64})$/.exec(String(hit.headers['x-signature'])) ?? [];
      expect(Math.abs(Number(t) - Date.now() / 1000)).toBeLessThan(60);
      expect(mac).toBe(createHmac('sha256', hook.secret).update(`${t}.${hit.body}`).digest('hex'));
      expect(hit.headers['content-type']).toBe('application/json');
    }
    expect(JSON.parse(hits[0]?.body ?? '{}')).toMatchObject({
      event_type: 'install',
      user_id: null,
      campaign_id: null,
      network_name: 'ORGANIC',
      email: null,
      installed_at: expect.any(String),
    });
    expect(JSON.parse(hits[1]?.body ?? '{}')).toMatchObject({
      event_type: 'signup',
      user_id: 'u-7',
      email: 'ann@example.com',
      phone: '+15551234567',
      network_name: 'ORGANIC',
    });
    expect((await deliveryRows(h().deps, p)).map((r) => r.status)).toEqual(['sent', 'sent']);
  });

  it('when the receiver answers 503, then the delivery is retried with the same body and delivery id', async () => {
    const { p, iid, destination } = await hooked(['signup']);
    receiver.failNext(1, 503);
    const t0 = Date.now();

    expect(await deliverAt(h().deps, p, destination, t0)).toMatchObject({ sent: 0, retry: true });
    expect(await deliverAt(h().deps, p, destination, t0 + 1_100)).toMatchObject({ sent: 1 });

    const hits = hitsFor(iid);
    expect(hits.map((x) => x.status)).toEqual([503, 200]);
    expect(hits[0]?.body).toBe(hits[1]?.body);
    expect(hits[0]?.headers['x-delivery-id']).toBe(hits[1]?.headers['x-delivery-id']);
    expect((await attemptRows(h().deps, p)).map((a) => [a.outcome, a.http_status])).toEqual([
      ['retry', 503],
      ['sent', 200],
    ]);
  });

  it('when the user is deleted (DELETE /api/v1/users), then their queued deliveries are deleted too', async () => {
    const { p } = await hooked();
    expect(await deliveryRows(h().deps, p)).toHaveLength(2);

    const res = await h().app.inject({ method: 'DELETE', url: '/api/v1/users/u-7', headers: p.headers });

    expect(res.statusCode).toBe(200);
    expect(await deliveryRows(h().deps, p)).toEqual([]);
  });

  it('when the receiver answers 410, then the delivery is dead with the reason and not retried', async () => {
    const { p, destination } = await hooked(['install']);
    receiver.failNext(1, 410);

    expect(await deliverAt(h().deps, p, destination)).toMatchObject({ dead: 1, retry: false });

    expect(await deliveryRows(h().deps, p)).toMatchObject([{ status: 'dead', last_error: 'HTTP 410: ' }]);
  });
});
