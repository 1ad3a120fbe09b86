// Catalog §4d D9: after DELETE /api/v1/users/:user_id, nothing that names the user is left in ANY
// store. test/http/v1/delete-user.test.ts checks the stores the deletion knows about (its report,
// other users kept, the CLI); this file searches every Postgres table, every ClickHouse table and
// the attribution cache for every identifier of the user (user id, install id, click id, ad id,
// email, phone, and their sha256 forms as sent to Meta), and prints rows remaining per store.
// BullMQ job data holds ids only (pii.test.ts) and is not searched here. seen_event_ids keeps the
// app's own event ids (dedupe) with no user column: an app that builds event ids from user ids
// would leave those behind (noted in the report; the test uses random event ids).
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attributionCacheKey } from '../../src/domain/identity/read-attribution.ts';
import { attributedInstall, attributionData, flushFacts, post } from '../support/client.ts';
import { CART, connectMeta, deliverAt, deliveryEnv } from '../support/deliveries.ts';
import { FakeCapi } from '../support/fake-capi.ts';
import { newProject, useHarness } from '../support/harness.ts';
import { figure } from '../support/security-routes.ts';
import { chHits, pgHits } from '../support/store-hits.ts';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

const fake = new FakeCapi();
const env = deliveryEnv();
beforeAll(async () => {
  env.META_GRAPH_BASE_URL = await fake.start();
});
afterAll(() => fake.stop());
const h = useHarness({ env });

describe('D9 GDPR deletion', () => {
  it('when a user with installs, a click, contact data, events, payments, a push token and Meta deliveries is deleted, then 0 rows name it in any store', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    await connectMeta(deps, p);
    const { iid, gaid, clickId } = await attributedInstall(h(), p);
    const userId = `gdpr-${iid.slice(0, 8)}`;
    const email = `gdpr.${iid.slice(0, 8)}@example.org`;
    const phone = '+33 6 12 34 56 78';
    const base = { token: p.token, platform: 'ANDROID', install_instance_id: iid };
    const steps = [
      await post(h(), 'trigger', { ...base, user_data: { id: userId, email, phone }, data: { device_data: {} } }),
      await post(h(), 'set-user-data', { ...base, user_data: { id: userId, email, phone, name: 'Gdpr Person' } }),
      await post(h(), 'capture-event', {
        ...base,
        event_name: 'add_to_cart',
        event_data: CART,
        event_id: randomUUID(),
      }),
      await post(h(), 'capture-payment', {
        ...base,
        amount: 49.99,
        type: 'FIRST_PAYMENT',
        payment_id: `pay-${userId}`,
        event_data: CART,
      }),
      await post(h(), 'update-push-token', { ...base, push_token: `push-${userId}` }),
      await attributionData(h(), p.token, iid),
    ];
    expect(steps.map((s) => s.statusCode).every((s) => s < 300)).toBe(true);
    await deliverAt(deps, p, 'meta');
    await flushFacts(h());
    const markers = [userId, iid, clickId, gaid, email, '612345678', sha(email), sha(userId), `push-${userId}`];
    const pgBefore = await pgHits(h(), markers);
    const chBefore = await chHits(h(), markers);

    const res = await app.inject({ method: 'DELETE', url: `/api/v1/users/${userId}`, headers: p.headers });
    await flushFacts(h());
    const pgAfter = await pgHits(h(), markers);
    const chAfter = await chHits(h(), markers);
    const cached = await deps.cache.get(attributionCacheKey(p.project.id, iid));
    const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);
    figure('D9 remaining rows', {
      pg_before: sum(pgBefore),
      ch_before: sum(chBefore),
      pg_remaining: sum(pgAfter),
      ch_remaining: sum(chAfter),
      cache_remaining: cached === undefined ? 0 : 1,
      searched_in: JSON.stringify({ ...pgBefore, ...chBefore }).replaceAll(' ', ''),
      remaining_in: JSON.stringify({ ...pgAfter, ...chAfter }).replaceAll(' ', ''),
    });

    expect(res.statusCode).toBe(200);
    expect(sum(pgBefore)).toBeGreaterThan(0);
    expect(sum(chBefore)).toBeGreaterThan(0);
    expect({ ...pgAfter, ...chAfter }).toEqual({});
    expect(cached).toBeUndefined();
  });
});
