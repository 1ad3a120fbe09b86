// Held sign-up webhooks released by the decision (README "Outgoing deliveries: Meta Conversions API
// and webhooks", "Webhooks" and "Machinery"): the order they go out in, the campaign fields of an
// ORGANIC decision, a deleted user, the signature and delivery id of a released row, and a webhook
// whose secret is replaced while a sign-up waits.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWebhook } from '../../src/domain/deliveries/add-webhook.ts';
import { deleteUser } from '../../src/domain/users/delete-user.ts';
import { attribute, campaignWithListings } from '../support/client.ts';
import { deliverAt, deliveryEnv, deliveryRows } from '../support/deliveries.ts';
import { FakeWebhook } from '../support/fake-webhook.ts';
import { useHarness } from '../support/harness.ts';
import { bodiesFor, clickedInstall, hookedProject, initAndroid, trigger } from '../support/held-webhooks.ts';

const receiver = new FakeWebhook();
const second = new FakeWebhook();
beforeAll(async () => {
  await receiver.start();
  await second.start();
});
afterAll(async () => {
  await receiver.stop();
  await second.stop();
});
const h = useHarness({ env: deliveryEnv() });

const ATTRIBUTION_KEYS = [
  'campaign_id',
  'campaign_name',
  'network_name',
  'ad_channel',
  'attributed_on',
  'store_click_at',
  'meta_campaign_details',
  'google_campaign_details',
];
const attributionOf = (b: Record<string, unknown> | undefined) =>
  Object.fromEntries(ATTRIBUTION_KEYS.map((k) => [k, b?.[k]]));

describe('release order', () => {
  it('when two users sign up on one install while it is being attributed, then the install notification goes first and the sign-ups follow in the order they came', async () => {
    const { p, destination } = await hookedProject(h(), receiver);
    const campaign = await campaignWithListings(h().deps, p);
    const iid = await clickedInstall(h(), p, campaign);
    await trigger(h(), p, iid, 'order-a');
    await trigger(h(), p, iid, 'order-b');

    await attribute(h(), p, iid);
    expect(await deliverAt(h().deps, p, destination)).toMatchObject({ claimed: 3, sent: 3 });

    const bodies = bodiesFor(receiver, iid);
    expect(bodies.map((b) => [b.event_type, b.user_id])).toEqual([
      ['install', null],
      ['signup', 'order-a'],
      ['signup', 'order-b'],
    ]);
    expect(bodies.every((b) => b.campaign_id === campaign.displayId)).toBe(true);
  });

  it('when the project has two webhooks, then each receives the install notification before the held sign-up', async () => {
    const { p, destination } = await hookedProject(h(), receiver);
    const other = await addWebhook(h().deps, p.project.id, { url: second.url, events: ['install', 'signup'] });
    const campaign = await campaignWithListings(h().deps, p);
    const iid = await clickedInstall(h(), p, campaign);
    await trigger(h(), p, iid, 'two-hooks');

    await attribute(h(), p, iid);
    await deliverAt(h().deps, p, destination);
    await deliverAt(h().deps, p, `webhook:${other.id}`);

    expect(bodiesFor(receiver, iid).map((b) => b.event_type)).toEqual(['install', 'signup']);
    expect(bodiesFor(second, iid).map((b) => b.event_type)).toEqual(['install', 'signup']);
  });

  it('when the webhook asked for sign-ups only, then the held sign-up is released with the campaign', async () => {
    const { p, destination } = await hookedProject(h(), receiver, ['signup']);
    const campaign = await campaignWithListings(h().deps, p);
    const iid = await clickedInstall(h(), p, campaign);
    await trigger(h(), p, iid, 'signup-only');

    expect(await deliverAt(h().deps, p, destination)).toMatchObject({ claimed: 0 });
    await attribute(h(), p, iid);
    expect(await deliverAt(h().deps, p, destination)).toMatchObject({ claimed: 1, sent: 1 });
    expect(bodiesFor(receiver, iid)).toMatchObject([
      { event_type: 'signup', user_id: 'signup-only', campaign_id: campaign.displayId, network_name: 'LINK' },
    ]);
  });
});

describe('an install decided ORGANIC', () => {
  it('when its held sign-up is released, then it says ORGANIC with no campaign, the same as the install notification', async () => {
    const { p, destination } = await hookedProject(h(), receiver);
    const iid = await initAndroid(h(), p, {});
    await trigger(h(), p, iid, 'organic-1');

    const decision = await attribute(h(), p, iid);
    expect(decision?.method).toBe('organic');
    expect(await deliverAt(h().deps, p, destination)).toMatchObject({ claimed: 2, sent: 2 });

    const [install, signup] = bodiesFor(receiver, iid);
    expect([install?.event_type, signup?.event_type]).toEqual(['install', 'signup']);
    expect(attributionOf(signup)).toEqual({
      campaign_id: null,
      campaign_name: null,
      network_name: 'ORGANIC',
      ad_channel: null,
      attributed_on: expect.any(String),
      store_click_at: null,
      meta_campaign_details: null,
      google_campaign_details: null,
    });
    expect(attributionOf(signup)).toEqual(attributionOf(install));
  });
});

describe('a held sign-up of a deleted user', () => {
  it('when the user is deleted while the sign-up waits, then nothing about the user is POSTed after the decision or after the hour', async () => {
    const { p, destination } = await hookedProject(h(), receiver);
    const campaign = await campaignWithListings(h().deps, p);
    const iid = await clickedInstall(h(), p, campaign);
    await trigger(h(), p, iid, 'gone-1');

    const deletion = await deleteUser(h().deps, p.project, 'gone-1', { writerWaitMs: 0 });
    expect(deletion).toBeDefined();
    // The deletion took the install too (the user's only device): a decision finds nothing to do.
    await attribute(h(), p, iid);
    await deliverAt(h().deps, p, destination);
    await deliverAt(h().deps, p, destination, Date.now() + 3600_000 + 60_000);

    expect(receiver.hits.filter((x) => x.body.includes('gone-1'))).toEqual([]);
    expect(await deliveryRows(h().deps, p)).toEqual([]);
  });
});

describe('a held sign-up of a deleted user on a shared device', () => {
  it("when one of two users who signed up on one pending install is deleted, then only the other's sign-up is released, after the install notification", async () => {
    const { p, destination } = await hookedProject(h(), receiver);
    const campaign = await campaignWithListings(h().deps, p);
    const iid = await clickedInstall(h(), p, campaign);
    await trigger(h(), p, iid, 'shared-gone');
    await trigger(h(), p, iid, 'shared-stays');

    await deleteUser(h().deps, p.project, 'shared-gone', { writerWaitMs: 0 });
    await attribute(h(), p, iid);
    await deliverAt(h().deps, p, destination);

    expect(receiver.hits.filter((x) => x.body.includes('shared-gone'))).toEqual([]);
    expect(bodiesFor(receiver, iid).map((b) => [b.event_type, b.user_id, b.campaign_id])).toEqual([
      ['install', null, campaign.displayId],
      ['signup', 'shared-stays', campaign.displayId],
    ]);
  });
});

describe('a released sign-up on the wire', () => {
  it('when it is POSTed, then x-signature verifies with HMAC-SHA256(secret, "<t>.<body>") over the exact body and x-delivery-id is the row id', async () => {
    const { p, hook, destination } = await hookedProject(h(), receiver);
    const campaign = await campaignWithListings(h().deps, p);
    const iid = await clickedInstall(h(), p, campaign);
    await trigger(h(), p, iid, 'sig-1');
    await attribute(h(), p, iid);

    const at = Date.now();
    await deliverAt(h().deps, p, destination, at);

    const hits = receiver.hits.filter((x) => x.body.includes(iid));
    expect(hits).toHaveLength(2);
    const rows = await deliveryRows(h().deps, p);
    for (const [i, hit] of hits.entries()) {
      const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(hit.headers['x-signature']));
      expect(m).not.toBeNull();
      const t = Number(m?.[1]);
      expect(Math.abs(t - Math.floor(at / 1000))).toBeLessThanOrEqual(1);
      const mac = createHmac('sha256', hook.secret).update(`${m?.[1]}.${hit.body}`).digest('hex');
      expect(m?.[2]).toBe(mac);
      expect(hit.headers['x-delivery-id']).toBe(rows[i]?.id);
      expect(hit.headers['content-type']).toMatch(/^application\/json/);
    }
  });

  it('when the released sign-up is answered 503 first, then the retry carries the same x-delivery-id and body, and it is POSTed once more only', async () => {
    const { p, destination } = await hookedProject(h(), receiver, ['signup']);
    const campaign = await campaignWithListings(h().deps, p);
    const iid = await clickedInstall(h(), p, campaign);
    await trigger(h(), p, iid, 'retry-1');
    await attribute(h(), p, iid);

    receiver.failNext(1, 503);
    const t0 = Date.now();
    expect(await deliverAt(h().deps, p, destination, t0)).toMatchObject({ claimed: 1, sent: 0, retry: true });
    expect(await deliverAt(h().deps, p, destination, t0 + 500)).toMatchObject({ claimed: 0 });
    expect(await deliverAt(h().deps, p, destination, t0 + 1500)).toMatchObject({ claimed: 1, sent: 1 });
    await deliverAt(h().deps, p, destination, t0 + 60_000);

    const hits = receiver.hits.filter((x) => x.body.includes(iid));
    expect(hits.map((x) => x.status)).toEqual([503, 200]);
    expect(hits[0]?.headers['x-delivery-id']).toBe(hits[1]?.headers['x-delivery-id']);
    expect(hits[0]?.body).toBe(hits[1]?.body);
  });

  it('when the webhook is added again (new secret) while the sign-up waits, then the released sign-up is signed with the new secret', async () => {
    const { p, hook, destination } = await hookedProject(h(), receiver, ['signup']);
    const campaign = await campaignWithListings(h().deps, p);
    const iid = await clickedInstall(h(), p, campaign);
    await trigger(h(), p, iid, 'resecret-1');

    const again = await addWebhook(h().deps, p.project.id, { url: receiver.url, events: ['signup'] });
    expect(again.id).toBe(hook.id);
    expect(again.secret).not.toBe(hook.secret);
    await attribute(h(), p, iid);
    await deliverAt(h().deps, p, destination);

    const [hit] = receiver.hits.filter((x) => x.body.includes(iid));
    const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(hit?.headers['x-signature']));
    expect(m?.[2]).toBe(createHmac('sha256', again.secret).update(`${m?.[1]}.${hit?.body}`).digest('hex'));
  });
});
