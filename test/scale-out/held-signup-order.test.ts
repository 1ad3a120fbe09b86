// Scaled out: a sign-up webhook held for its install's attribution, released by the decision
// while two workers run. README "Outgoing deliveries": "a sign-up that arrives while its install is
// still being attributed is held and POSTed once the decision fills it in, right after the
// install's own notification." Here the receiver answers the install's first POST with a 503 (a
// retried status): the sign-up must still reach the receiver after the install, once each (the
// batch went on after a 5xx and sent the sign-up first).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkers } from '../../jobs/worker.ts';
import { addWebhook } from '../../src/domain/deliveries/add-webhook.ts';
import { ANDROID_UA, post } from '../support/client.ts';
import { deliveryEnv, deliveryRows } from '../support/deliveries.ts';
import { until } from '../support/fact-counts.ts';
import { FakeWebhook } from '../support/fake-webhook.ts';
import { type Harness, newProject } from '../support/harness.ts';
import { hasRedis, useTwoInstances } from './instances.ts';

const receiver = new FakeWebhook();
beforeAll(() => receiver.start());
afterAll(() => receiver.stop());

let a: Harness;
let b: Harness;
// Workers are started inside the test, after the sign-up is held.
useTwoInstances(deliveryEnv(), (x, y) => {
  a = x;
  b = y;
});
const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const s of stops) {
    await s();
  }
});

describe.skipIf(!hasRedis)('held sign-up webhooks with two workers', () => {
  it('when the install notification first gets a 503, then the held sign-up is still POSTed after the install notification, each once', async () => {
    const p = await newProject(a.deps);
    await addWebhook(a.deps, p.project.id, { url: receiver.url, events: ['install', 'signup'] });
    const iid = randomUUID();
    const init = await post(
      a,
      'init',
      { token: p.token, platform: 'ANDROID', install_instance_id: iid, device_data: {} },
      { remoteAddress: '10.9.8.7', headers: { 'user-agent': ANDROID_UA } },
    );
    expect(init.statusCode).toBe(202);
    const t = await post(b, 'trigger', {
      token: p.token,
      platform: 'ANDROID',
      install_instance_id: iid,
      user_data: { id: 'u-held' },
      data: { device_data: {} },
      event: 'SIGNUP',
    });
    expect(t.statusCode).toBe(200);
    // No worker yet: the install is undecided, so its sign-up webhook is held.
    expect((await deliveryRows(a.deps, p)).map((r) => [r.event_key, r.status])).toEqual([
      [`signup:${iid}:u-held`, 'pending'],
    ]);

    receiver.failNext(1, 503);
    stops.push(await startWorkers(a.deps), await startWorkers(b.deps));
    await until(
      'both deliveries are sent',
      async () => {
        const rows = await deliveryRows(a.deps, p);
        return rows.length === 2 && rows.every((r) => r.status === 'sent');
      },
      60_000,
    );

    const hits = receiver.hits.filter((h) => h.body.includes(iid));
    const accepted = hits.filter((h) => h.status === 200).map((h) => JSON.parse(h.body).event_type);
    expect(accepted).toEqual(['install', 'signup']);
  }, 90_000);
});
