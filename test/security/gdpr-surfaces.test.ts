// GDPR deletion: DELETE /api/v1/users/:user_id against the surfaces that landed beside it: payments
// stored through the RevenueCat webhook, payment removals whose outbox rows name their capture
// (fact_outbox.enrich_from) waiting in the outbox or dead-lettered, webhook deliveries and their
// attempt log, MCP lookup_attribution, and tenants sharing a user id. README "users delete": the
// user's data goes from Postgres, the ClickHouse raw tables and view targets, and the cache.
import { randomInt, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { addWebhook } from '../../src/domain/deliveries/add-webhook.ts';
import { attributionCacheKey } from '../../src/domain/identity/read-attribution.ts';
import { callTool, mcpToken } from '../http/mcp/mcp-client.ts';
import { attributedInstall, attributionData, flushFacts, post, type Res } from '../support/client.ts';
import { registeredUser, signUp } from '../support/commerce.ts';
import { deliverAt, deliveryEnv } from '../support/deliveries.ts';
import { newProject, type TestProject, useHarness } from '../support/harness.ts';
import { gatedBegin, someoneWaitsForALock } from '../support/sql-gates.ts';
import { hitsEverywhere } from '../support/store-hits.ts';

const h = useHarness({ env: deliveryEnv() });

function deleteUser(p: TestProject, userId: string, app: FastifyInstance = h().app) {
  return app.inject({ method: 'DELETE', url: `/api/v1/users/${encodeURIComponent(userId)}`, headers: p.headers });
}

async function connectRevenueCat(p: TestProject): Promise<string> {
  const res = await h().app.inject({ method: 'PUT', url: '/api/v1/connections/revenuecat', headers: p.headers });
  expect(res.statusCode).toBe(200);
  return res.json().data.authorization_token as string;
}

function rcEvent(userId: string, event: Record<string, unknown> = {}) {
  return {
    api_version: '1.0',
    event: {
      event_timestamp_ms: Date.now(),
      product_id: 'com.example.monthly',
      environment: 'PRODUCTION',
      transaction_id: String(randomInt(1e14, 2e14)),
      app_user_id: userId,
      aliases: [],
      original_app_user_id: userId,
      currency: 'USD',
      price: 9.99,
      price_in_purchased_currency: 9.99,
      store: 'APP_STORE',
      type: 'INITIAL_PURCHASE',
      id: randomUUID(),
      ...event,
    },
  };
}

const refundOf = (userId: string, purchase: ReturnType<typeof rcEvent>) =>
  rcEvent(userId, {
    type: 'CANCELLATION',
    cancel_reason: 'CUSTOMER_SUPPORT',
    price: -9.99,
    price_in_purchased_currency: -9.99,
    transaction_id: purchase.event.transaction_id,
  });

function sendRc(authorization: string, body: unknown, app: FastifyInstance = h().app): Promise<Res> {
  return app.inject({
    method: 'POST',
    url: '/webhook/revenuecat',
    headers: { authorization },
    payload: body as object,
  }) as Promise<Res>;
}

async function outboxRemovals(p: TestProject): Promise<number> {
  const [r] = await h().deps.sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM fact_outbox WHERE project_id = ${p.project.id} AND enrich_from IS NOT NULL`;
  return r?.n ?? 0;
}

describe('RevenueCat payments and their removals', () => {
  it('when the user has a RevenueCat purchase in ClickHouse and its refund’s removal waits in the outbox, then the deletion leaves nothing of either', async () => {
    const userId = `rc-${randomUUID().slice(0, 8)}`;
    const { p, iid } = await registeredUser(h(), userId);
    const token = await connectRevenueCat(p);
    const purchase = rcEvent(userId);
    expect((await sendRc(token, purchase)).json().data.result).toBe('stored');
    await flushFacts(h());
    const refund = refundOf(userId, purchase);
    expect((await sendRc(token, refund)).json().data.removed).toBe(1);
    expect(await outboxRemovals(p)).toBe(1);
    const markers = [userId, iid, purchase.event.transaction_id, refund.event.id];
    expect(Object.keys(await hitsEverywhere(h(), markers)).length).toBeGreaterThan(0);

    const res = await deleteUser(p, userId);
    await flushFacts(h());

    expect(res.statusCode).toBe(200);
    expect(res.json().data.removed.postgres).toMatchObject({ app_users: 1, installs: 1, payments: 2 });
    expect(await hitsEverywhere(h(), markers)).toEqual({});
  });

  it('when the removal became a dead letter because its capture is one, then the deletion removes both dead letters', async () => {
    const userId = `rc-dead-${randomUUID().slice(0, 8)}`;
    const { p, iid } = await registeredUser(h(), userId);
    const token = await connectRevenueCat(p);
    const purchase = rcEvent(userId);
    expect((await sendRc(token, purchase)).json().data.result).toBe('stored');
    // The capture is refused by ClickHouse (moved to the dead letters as the writer does).
    await h().deps.sql`
      WITH moved AS (
        DELETE FROM fact_outbox WHERE project_id = ${p.project.id} AND fact_table = 'payments' RETURNING *)
      INSERT INTO fact_dead_letters (fact_table, fact_id, project_id, row, reason)
      SELECT fact_table, fact_id, project_id, row::jsonb, 'refused (test)' FROM moved`;
    expect((await sendRc(token, refundOf(userId, purchase))).json().data.removed).toBe(1);
    await flushFacts(h());
    const [dead] = await h().deps.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM fact_dead_letters WHERE project_id = ${p.project.id} AND fact_table = 'payments'`;
    expect(dead?.n).toBe(2);

    const res = await deleteUser(p, userId);

    expect(res.statusCode).toBe(200);
    expect(res.json().data.removed.postgres.fact_dead_letters).toBe(2);
    expect(await hitsEverywhere(h(), [userId, iid, purchase.event.transaction_id])).toEqual({});
  });

  it('when a RevenueCat refund commits while the deletion runs, then its removal does not stay behind in the outbox or the dead letters', async () => {
    // The deletion deletes the user's outbox rows, then its payments; a refund holding the payment's
    // row (marked removed, its sign -1 fact inserted) makes the deletion wait at the payments, and
    // its fact, committed meanwhile, is not among the outbox rows the deletion already deleted.
    const userId = `rc-race-${randomUUID().slice(0, 8)}`;
    const { p } = await registeredUser(h(), userId);
    const token = await connectRevenueCat(p);
    const purchase = rcEvent(userId);
    expect((await sendRc(token, purchase)).json().data.result).toBe('stored');
    await flushFacts(h());
    const gate = gatedBegin(h().deps.sql, 'commit');
    const rcApp = await buildApp({ ...h().deps, sql: gate.sql });
    try {
      const refunding = sendRc(token, refundOf(userId, purchase), rcApp);
      await gate.reached; // the removal is written, not committed; it holds the payment's row
      const deleting = deleteUser(p, userId);
      expect(await someoneWaitsForALock(h().deps.sql)).toBe(true);
      gate.open();
      const [refunded, deleted] = await Promise.all([refunding, deleting]);
      expect(refunded.statusCode).toBe(200);
      expect(deleted.statusCode).toBe(200);
      await flushFacts(h());

      const [left] = await h().deps.sql<{ outbox: number; dead: number }[]>`
        SELECT (SELECT count(*)::int FROM fact_outbox WHERE project_id = ${p.project.id} AND row->>'user_id' = ${userId}) AS outbox,
          (SELECT count(*)::int FROM fact_dead_letters WHERE project_id = ${p.project.id} AND row->>'user_id' = ${userId}) AS dead`;
      // (Whether the refund's own SUBSCRIPTION_REFUNDED payment is stored too depends on whether it
      // found the user registered before the deletion committed: see deletion-races.test.ts.)
      expect(left).toEqual({ outbox: 0, dead: 0 });
    } finally {
      gate.open();
      await rcApp.close();
    }
  });
});

describe('webhook deliveries and their attempt log', () => {
  let server: Server;
  let url = '';
  beforeAll(async () => {
    // A receiver that refuses the sign-up and says why, naming the address it refused (as a
    // backend's "already registered" answer does).
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { email?: string };
        res.writeHead(409, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: `${body.email ?? 'user'} is already registered` }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('when the receiver’s answer to the user’s sign-up named their e-mail, then the deletion leaves it nowhere (delivery_attempts included)', async () => {
    const p = await newProject(h().deps);
    const hook = await addWebhook(h().deps, p.project.id, { url, events: ['signup'] });
    const { iid } = await attributedInstall(h(), p);
    const userId = `hook-${randomUUID().slice(0, 8)}`;
    const email = `${userId}@example.org`;
    const t = await post(h(), 'trigger', {
      token: p.token,
      platform: 'ANDROID',
      install_instance_id: iid,
      user_data: { id: userId, email },
      data: { device_data: {} },
    });
    expect(t.statusCode).toBe(200);
    const out = await deliverAt(h().deps, p, `webhook:${hook.id}`);
    expect(out.dead).toBe(1);
    expect(await hitsEverywhere(h(), [email])).toMatchObject({ deliveries: 1, delivery_attempts: 1 });

    const res = await deleteUser(p, userId);

    expect(res.statusCode).toBe(200);
    expect(await hitsEverywhere(h(), [email, userId])).toEqual({});
  });
});

describe('MCP lookup_attribution after the deletion', () => {
  it('when the user is deleted, then lookup_attribution by user_id, device_identifier and install_instance_id finds nothing', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const { iid, gaid } = await attributedInstall(h(), p);
    const userId = `mcp-${randomUUID().slice(0, 8)}`;
    await signUp(h(), p, iid, userId);
    expect((await attributionData(h(), p.token, iid)).statusCode).toBe(200);
    await flushFacts(h());
    const token = await mcpToken(deps, p);
    const before = await callTool(h().app, token, 'lookup_attribution', { user_id: userId });
    expect(before.data.found).toBe(true);

    expect((await deleteUser(p, userId)).statusCode).toBe(200);

    const found = async (args: Record<string, unknown>) =>
      (await callTool(h().app, token, 'lookup_attribution', args)).data.found;
    expect({
      byUser: await found({ user_id: userId }),
      byDevice: await found({ device_identifier: gaid }),
      byInstall: await found({ install_instance_id: iid }),
    }).toEqual({ byUser: false, byDevice: false, byInstall: false });
  });

  it('when one of two users of a shared device is deleted, then lookup_attribution still finds the other by user_id and the device', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const { iid, gaid } = await attributedInstall(h(), p);
    const first = `mcp-a-${randomUUID().slice(0, 8)}`;
    const second = `mcp-b-${randomUUID().slice(0, 8)}`;
    await signUp(h(), p, iid, first);
    await signUp(h(), p, iid, second); // logs in on the install the first registered through
    await flushFacts(h());
    const token = await mcpToken(deps, p);

    expect((await deleteUser(p, first)).statusCode).toBe(200);

    const lookup = async (args: Record<string, unknown>) =>
      (await callTool(h().app, token, 'lookup_attribution', args)).data;
    expect({
      first: (await lookup({ user_id: first })).found,
      second: (await lookup({ user_id: second })).found,
      device: (await lookup({ device_identifier: gaid })).found,
    }).toEqual({ first: false, second: true, device: true });
  });
});

describe('tenants sharing a user id', () => {
  it('when project A deletes user X, then project B’s user X keeps every row, its cache and its lookup', async () => {
    const userId = `same-${randomUUID().slice(0, 8)}`;
    const setup = async () => {
      const p = await newProject(h().deps);
      const { iid, clickId } = await attributedInstall(h(), p);
      await signUp(h(), p, iid, userId);
      const base = { token: p.token, platform: 'ANDROID', install_instance_id: iid };
      expect((await post(h(), 'capture-event', { ...base, event_name: 'lvl', event_data: {} })).statusCode).toBe(200);
      expect((await post(h(), 'capture-payment', { ...base, amount: 3, payment_id: `pay-${iid}` })).statusCode).toBe(
        201,
      );
      expect((await attributionData(h(), p.token, iid)).statusCode).toBe(200);
      return { p, iid, clickId };
    };
    const a = await setup();
    const b = await setup();
    await flushFacts(h());
    const bMarkers = [b.iid, b.clickId, `pay-${b.iid}`];
    const bBefore = await hitsEverywhere(h(), bMarkers);

    const res = await deleteUser(a.p, userId);

    expect(res.statusCode).toBe(200);
    expect(res.json().data.install_instance_ids).toEqual([a.iid]);
    expect(await hitsEverywhere(h(), bMarkers)).toEqual(bBefore);
    expect(await h().deps.cache.get(attributionCacheKey(b.p.project.id, b.iid))).toBeDefined();
    const lookup = await h().app.inject({
      method: 'GET',
      url: `/api/v1/get-attribution-result?user_id=${userId}`,
      headers: b.p.headers,
    });
    expect(lookup.statusCode).toBe(200);
    expect(await hitsEverywhere(h(), [a.iid, a.clickId, `pay-${a.iid}`])).toEqual({});
  });
});

describe('the report against what was removed', () => {
  it('when no attribution-data answer of the user was ever cached, then the report does not say one was removed from the cache', async () => {
    // README: `users delete` "prints what was removed". removed.cache.attribution_data is the
    // number of the user's installs (delete-user.ts: cacheKeys: keys.installIds.length), whether
    // or not the cache held an answer for them.
    const userId = `report-${randomUUID().slice(0, 8)}`;
    const { p, iid } = await registeredUser(h(), userId);
    expect(await h().deps.cache.get(attributionCacheKey(p.project.id, iid))).toBeUndefined();

    const res = await deleteUser(p, userId);

    expect(res.statusCode).toBe(200);
    expect(res.json().data.removed.cache).toEqual({ attribution_data: 0 });
  });
});
