// GET /api/v1/reporting/campaigns and MCP get_project_stats: revenue is money in (README
// "Reporting", revenue). A completed payment of type FUNDS_WITHDRAWAL, SUBSCRIPTION_CANCELLED,
// SUBSCRIPTION_REFUNDED or SUBSCRIPTION_BILLING_ISSUE (a wallet app's withdrawal, a refund sent as
// a completed payment) is not revenue, revenue_event_count, ROAS or daywise revenue, and its
// removal subtracts nothing; payment_events still shows every type with its count and total.
// Everything goes through the real write paths (link click, init, attribution job, trigger,
// capture-payment, capture-event, remove-captured-payment, the spend endpoint, the fact writer).
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Campaign } from '../../../src/domain/campaigns/campaign.ts';
import { attribute, campaignWithListings, clickLink, flushFacts, init, post, randomIp } from '../../support/client.ts';
import { signUp } from '../../support/commerce.ts';
import { newProject, type TestProject, useHarness } from '../../support/harness.ts';
import { at } from '../../support/users.ts';
import { callTool, mcpToken } from '../mcp/mcp-client.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

const DAY_MS = 86_400_000;
// Day 0 is ten days ago at 10:00 UTC (the project's zone), so the cohort has reached day 7, not day 30.
const T0 = Math.floor(Date.now() / DAY_MS) * DAY_MS - 10 * DAY_MS + 10 * 3_600_000;
const day = (n: number) => new Date(T0 + n * DAY_MS).toISOString().slice(0, 10);
const WINDOW = `from=${day(0)}&to=${day(2)}`;
const NOT_REVENUE = [
  'FUNDS_WITHDRAWAL',
  'SUBSCRIPTION_REFUNDED',
  'SUBSCRIPTION_CANCELLED',
  'SUBSCRIPTION_BILLING_ISSUE',
];

type Obj = Record<string, unknown>;

let p: TestProject;
let c: Campaign;

async function send(path: string, status: number, body: Obj, ms: number): Promise<void> {
  const res = await at(h(), ms, () => post(h(), path, { token: p.token, platform: 'ANDROID', ...body }));
  expect(res.statusCode, `${path}: ${res.body}`).toBe(status);
}

beforeAll(async () => {
  const hh = h();
  p = await newProject(hh.deps, { timezone: 'UTC' });
  c = await campaignWithListings(hh.deps, p, { name: 'Wallet' });
  const ip = randomIp();
  const { referrer } = await at(hh, T0, () => clickLink(hh, c, { ip, query: 'adset_id=as1&adset_name=Set%201' }));
  const iid = randomUUID();
  await at(hh, T0, async () => {
    expect(
      (await init(hh, p.token, { install_instance_id: iid, device_data: { install_ref: referrer } }, ip)).statusCode,
    ).toBe(202);
  });
  await hh.deps.sql`UPDATE installs SET created_at = ${new Date(T0)}
    WHERE project_id = ${p.project.id} AND install_instance_id = ${iid}`;
  expect((await at(hh, T0 + 500, () => attribute(hh, p, iid)))?.method).toBe('play_referrer');
  await at(hh, T0 + 1000, () => signUp(hh, p, iid, 'u1'));
  const pay = (payment_id: string, type: string, amount: number, ms: number) =>
    send('capture-payment', 201, { install_instance_id: iid, user_id: 'u1', payment_id, type, amount }, ms);
  // Day 0: 10 + 5 + 1.5 of revenue; a 50 withdrawal and a 4 refund removed later; 3 and 2 that are not money in.
  await pay('p-default', 'DEFAULT', 10, T0 + 2000);
  await pay('p-topup', 'WALLET_TOPUP', 5, T0 + 2100);
  await pay('p-w1', 'FUNDS_WITHDRAWAL', 50, T0 + 2200);
  await pay('p-refund', 'SUBSCRIPTION_REFUNDED', 4, T0 + 2300);
  await pay('p-cancel', 'SUBSCRIPTION_CANCELLED', 3, T0 + 2400);
  await pay('p-billing', 'SUBSCRIPTION_BILLING_ISSUE', 2, T0 + 2500);
  await send(
    'capture-event',
    200,
    { install_instance_id: iid, user_id: 'u1', event_name: 'buy', event_data: { amount: 1.5 } },
    T0 + 2600,
  );
  // Day 2: 6 of revenue and a 20 withdrawal.
  await pay('p-renew', 'SUBSCRIPTION_RENEWED', 6, T0 + 2 * DAY_MS);
  await pay('p-w2', 'FUNDS_WITHDRAWAL', 20, T0 + 2 * DAY_MS + 100);
  await flushFacts(hh);
  for (const payment_id of ['p-w1', 'p-refund']) {
    await send('remove-captured-payment', 200, { payment_id }, T0 + 3 * DAY_MS);
  }
  const spend = await hh.app.inject({
    method: 'PUT',
    url: '/api/v1/spend',
    headers: p.headers,
    payload: { rows: [{ day: day(0), campaign_display_id: c.displayId, amount: 8 }] },
  });
  expect(spend.statusCode, spend.body).toBe(200);
  await flushFacts(hh);
}, 60_000);

describe('GET /api/v1/reporting/campaigns', () => {
  it('when withdrawals and refunded, cancelled or billing-issue payments are sent as completed, then revenue, roas and daywise revenue leave them out and payment_events shows them', async () => {
    const query = `${WINDOW}&payment_events=${[...NOT_REVENUE, 'DEFAULT', 'WALLET_TOPUP'].join(',')}`;

    const res = await h().app.inject({
      method: 'GET',
      url: `/api/v1/reporting/campaigns?${query}`,
      headers: p.headers,
    });

    expect(res.statusCode, res.body).toBe(200);
    const row = (res.json().data.campaigns as Obj[]).find((x) => x.id === c.id) as Obj;
    const money = {
      revenue: '$22.50',
      revenue_event_count: '4',
      payment_events: {
        FUNDS_WITHDRAWAL: { count: '1', total: '$20.00' },
        SUBSCRIPTION_REFUNDED: { count: '0', total: '$0.00' },
        SUBSCRIPTION_CANCELLED: { count: '1', total: '$3.00' },
        SUBSCRIPTION_BILLING_ISSUE: { count: '1', total: '$2.00' },
        DEFAULT: { count: '1', total: '$10.00' },
        WALLET_TOPUP: { count: '1', total: '$5.00' },
      },
    };
    const daywise = { d0: '$16.50', d3: '$22.50', d7: '$22.50', d30: '-' };
    expect(row).toMatchObject({ installs: '1', spend: '$8.00', roas: '2.81x', daywise_revenue: daywise, ...money });
    const adSet = (row.adSets as Obj[])[0] as Obj;
    expect(adSet).toMatchObject({ id: 'as1', daywise_revenue: daywise, ...money });
  });
});

describe('MCP get_project_stats', () => {
  it('when withdrawals and refunded payments were captured as completed, then revenue and revenue_events leave them out', async () => {
    const token = await mcpToken(h().deps, p);

    const stats = await callTool(h().app, token, 'get_project_stats', { from: day(0), to: day(2) });

    expect(stats.isError).toBe(false);
    expect(stats.data.attributed).toMatchObject({ revenue_events: 4, revenue: '22.5' });
  });
});
