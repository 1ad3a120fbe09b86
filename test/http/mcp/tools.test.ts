// The MCP tools (product-notes "MCP") against the HTTP API over the same data: get_project_stats and
// list_events add up to GET /api/v1/reporting/campaigns's rows (plus organic, which the report never
// lists), list_campaigns is GET /api/v1/campaigns's answer, lookup_attribution is
// get-attribution-result's (and attribution-data's by install id), get_billing_usage counts
// attributed installs against the 25k free pool. Facts are written with insertFactRows on chosen days.
import { beforeAll, describe, expect, it } from 'vitest';
import { setBilling } from '../../../src/domain/projects/set-billing.ts';
import { attributedInstall, attributionData } from '../../support/client.ts';
import * as f from '../../support/factories.ts';
import { newProject, type TestProject, useHarness } from '../../support/harness.ts';
import * as r from '../../support/report-facts.ts';
import { callTool, mcpToken } from './mcp-client.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

type Row = Record<string, unknown> & { id: number; name: string };

const num = (v: unknown) => Number(String(v).replace(/[^0-9.-]/g, ''));
const sumOf = (rows: Row[], field: string) => rows.reduce((n, row) => n + num(row[field]), 0);

async function reportRows(p: TestProject, query: string): Promise<Row[]> {
  const res = await h().app.inject({ method: 'GET', url: `/api/v1/reporting/campaigns?${query}`, headers: p.headers });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.campaigns as Row[];
}

const WINDOW = { from: '2024-12-20', to: '2025-02-10' }; // January whole: read from the monthly rollup
const DAYS = ['2024-12-25', '2025-01-15', '2025-02-05'];
const OUTSIDE = '2025-03-01';

describe('get_project_stats and list_events', () => {
  let p: TestProject;
  let token: string;

  beforeAll(async () => {
    const { app, deps } = h();
    p = await newProject(deps, { currency: 'EUR', timezone: 'Asia/Kolkata' });
    token = await mcpToken(deps, p);
    const android = await f.storeListing(deps, p, 'ANDROID');
    const [c1, c2, gone] = [
      await f.campaign(app, p, { name: 'One', store_listing_ids: [android.id] }),
      await f.campaign(app, p, { name: 'Two', store_listing_ids: [android.id] }),
      await f.campaign(app, p, { name: 'Gone', store_listing_ids: [android.id] }),
    ];
    const attributions = [];
    const clicks = [];
    const signups = [];
    const events = [];
    const payments = [];
    const spend = [];
    for (const [i, day] of [...DAYS, OUTSIDE].entries()) {
      for (const a of [{ campaignId: c1.id }, { campaignId: c2.id }, { campaignId: gone.id }, { campaignId: 0 }]) {
        const installs = Array.from({ length: a.campaignId === c1.id ? 2 + i : 1 }, () => r.newInstall(a, day));
        attributions.push(...installs.map((x, k) => r.attribution(p, x, { suspicious: k === 0 && i === 1 })));
        const x = installs[0] as r.InstallFact;
        signups.push(r.signup(p, x, `u-${a.campaignId}-${day}`));
        events.push(r.event(p, x, 'u', 'purchase', day, '10.5'), r.event(p, x, 'u', 'open', day));
        payments.push(r.payment(p, x, 'u', day, '4.25'));
        if (a.campaignId !== 0) {
          clicks.push(r.click(p, a, day), r.click(p, a, day));
          spend.push(r.spend(p, a, day, '7.1'));
        }
      }
    }
    await r.insertFacts(deps, 'attributions', attributions);
    await r.insertFacts(deps, 'clicks', clicks);
    await r.insertFacts(deps, 'signups', signups);
    await r.insertFacts(deps, 'events', events);
    await r.insertFacts(deps, 'payments', payments);
    await r.insertFacts(deps, 'spend', spend);
    const del = await app.inject({ method: 'DELETE', url: `/api/v1/campaigns/${gone.display_id}`, headers: p.headers });
    expect(del.statusCode).toBe(204);
  });

  it('when asked for a window, then attributed totals equal the sums of the report rows, and organic is added apart', async () => {
    const rows = await reportRows(p, `from=${WINDOW.from}&to=${WINDOW.to}`);

    const stats = await callTool(h().app, token, 'get_project_stats', WINDOW);

    expect(stats.isError).toBe(false);
    expect(stats.structured).toEqual(stats.data);
    const s = stats.data as Record<string, Record<string, number | string>>;
    expect(rows).toHaveLength(2);
    // c1: 2 + 3 + 4 installs in the window, c2: 3; the deleted campaign and OUTSIDE count nowhere.
    expect(s.attributed).toMatchObject({ installs: 12, clicks: 12, signups: 6, suspicious_installs: 2 });
    expect(s.attributed?.installs).toBe(sumOf(rows, 'installs'));
    expect(s.attributed?.clicks).toBe(sumOf(rows, 'clicks'));
    expect(s.attributed?.signups).toBe(sumOf(rows, 'sign-ups'));
    expect(s.attributed?.suspicious_installs).toBe(sumOf(rows, 'suspicious_installs'));
    expect(s.attributed?.revenue_events).toBe(sumOf(rows, 'revenue_event_count'));
    expect(num(s.attributed?.revenue)).toBeCloseTo(sumOf(rows, 'revenue'), 9);
    expect(num(s.attributed?.spend)).toBeCloseTo(sumOf(rows, 'spend'), 9);
    expect(s.attributed?.spend).toBe('42.6');
    expect(s.organic).toMatchObject({ installs: 3, signups: 3, clicks: 0, spend: '0' });
    expect(s.total).toMatchObject({ installs: 15, signups: 9 });
    expect(stats.data).toMatchObject({
      window: { from: WINDOW.from, to: WINDOW.to, timezone: 'Asia/Kolkata' },
      currency: 'EUR',
      live_campaigns: 2,
    });
  });

  it('when the window is bad, then the reporting endpoint’s own 400 text as a tool error', async () => {
    const api = await h().app.inject({
      method: 'GET',
      url: '/api/v1/reporting/campaigns?from=2025-02-30',
      headers: p.headers,
    });
    const reversed = await h().app.inject({
      method: 'GET',
      url: '/api/v1/reporting/campaigns?from=2025-02-10&to=2025-01-01',
      headers: p.headers,
    });

    const badDay = await callTool(h().app, token, 'get_project_stats', { from: '2025-02-30' });
    const backwards = await callTool(h().app, token, 'list_events', { from: '2025-02-10', to: '2025-01-01' });

    expect(badDay).toMatchObject({ isError: true, data: api.json() });
    expect(backwards).toMatchObject({ isError: true, data: reversed.json() });
  });

  it('when events are listed for a window, then attributed counts equal the report’s custom_events sums', async () => {
    const rows = await reportRows(p, `from=${WINDOW.from}&to=${WINDOW.to}`);
    const countIn = (row: Row, name: string) => {
      const v = (row.custom_events as Record<string, unknown>)[name];
      return num(typeof v === 'object' && v !== null ? (v as { count: string }).count : v);
    };

    const res = await callTool(h().app, token, 'list_events', WINDOW);

    expect(res.isError).toBe(false);
    const events = res.data.events as Record<string, unknown>[];
    expect(events.map((e) => e.name).sort()).toEqual(['open', 'purchase']);
    for (const e of events) {
      const name = e.name as string;
      expect(e.attributed_count, name).toBe(rows.reduce((n, row) => n + countIn(row, name), 0));
      expect(e).toMatchObject({ attributed_count: 6, organic_count: 3, count: 9 });
    }
    expect(events.find((e) => e.name === 'purchase')).toMatchObject({
      attributed_amount: '63',
      organic_amount: '31.5',
    });
    expect(res.data.names_cut).toBe(false);
  });

  it('when billing is suspended, then the reporting tools answer the report’s 402 as a tool error', async () => {
    const q = await newProject(h().deps);
    const t = await mcpToken(h().deps, q);
    await setBilling(h().deps, q.project.id, { suspended: 'true', paymentLink: 'https://pay.example.com/x' });
    const api = await h().app.inject({ method: 'GET', url: '/api/v1/reporting/campaigns', headers: q.headers });

    const stats = await callTool(h().app, t, 'get_project_stats');
    const events = await callTool(h().app, t, 'list_events');
    const billing = await callTool(h().app, t, 'get_billing_usage');

    expect(api.statusCode).toBe(402);
    expect(stats).toMatchObject({ isError: true, data: api.json() });
    expect(events).toMatchObject({ isError: true, data: api.json() });
    expect(billing.isError).toBe(false);
    expect(billing.data).toMatchObject({ billing_suspended: true, payment_link: 'https://pay.example.com/x' });
  });
});

describe('list_campaigns', () => {
  it('when asked for a page, then exactly GET /api/v1/campaigns’s msg and data', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const token = await mcpToken(deps, p);
    for (const name of ['A', 'B', 'C']) {
      await f.campaign(app, p, { name });
    }
    const api = await app.inject({ method: 'GET', url: '/api/v1/campaigns?page=2&limit=2', headers: p.headers });

    const res = await callTool(app, token, 'list_campaigns', { page: 2, limit: 2 });

    expect(res.isError).toBe(false);
    expect(res.data).toEqual({ msg: api.json().msg, ...api.json().data });
    expect((res.data.campaigns as unknown[]).length).toBe(1);
  });

  it('when a filter is refused by the API, then its text and status as a tool error', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const token = await mcpToken(deps, p);
    const api = await app.inject({ method: 'GET', url: '/api/v1/campaigns?channel=NOPE', headers: p.headers });

    const res = await callTool(app, token, 'list_campaigns', { channel: 'NOPE' });

    expect(api.statusCode).toBe(400);
    expect(res).toMatchObject({ isError: true, data: api.json() });
  });
});

describe('lookup_attribution', () => {
  it('when looked up by device identifier, user id or install id, then the API’s answers; unknown ones are not found', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const token = await mcpToken(deps, p);
    const { gaid, iid } = await attributedInstall(h(), p);
    await deps.sql`UPDATE installs SET user_id = 'user-1' WHERE project_id = ${p.project.id} AND install_instance_id = ${iid}`;
    const byDevice = await app.inject({
      method: 'GET',
      url: `/api/v1/get-attribution-result?device_identifier=${gaid}`,
      headers: p.headers,
    });
    const byUser = await app.inject({
      method: 'GET',
      url: '/api/v1/get-attribution-result?user_id=user-1',
      headers: p.headers,
    });
    const unknown = await app.inject({
      method: 'GET',
      url: '/api/v1/get-attribution-result?user_id=nobody',
      headers: p.headers,
    });
    const sdk = await attributionData(h(), p.token, iid);

    const device = await callTool(app, token, 'lookup_attribution', { device_identifier: gaid });
    const user = await callTool(app, token, 'lookup_attribution', { user_id: 'user-1' });
    const nobody = await callTool(app, token, 'lookup_attribution', { user_id: 'nobody' });
    const install = await callTool(app, token, 'lookup_attribution', { install_instance_id: iid });
    const noInstall = await callTool(app, token, 'lookup_attribution', { install_instance_id: 'no-such-install' });
    const nothing = await callTool(app, token, 'lookup_attribution', {});

    expect(byDevice.statusCode).toBe(200);
    expect(device.data).toEqual({ found: true, attribution: byDevice.json().data });
    expect(device.data.attribution).toMatchObject({ attribution_type: 'INORGANIC' });
    expect(user.data).toEqual({ found: true, attribution: byUser.json().data });
    expect(unknown.statusCode).toBe(204);
    expect(nobody.data).toEqual({ found: false, attribution: null });
    expect(sdk.statusCode).toBe(200);
    expect(install.data).toEqual({ found: true, pending: false, attribution: sdk.json().data });
    expect(noInstall.data).toEqual({ found: false, attribution: null });
    expect(nothing).toMatchObject({
      isError: true,
      data: { msg: 'Give one of user_id, device_identifier or install_instance_id.', status: 400 },
    });
  });
});

describe('get_project_info', () => {
  it('when asked, then the project’s settings, listings and domains, and no key or token anywhere', async () => {
    const { app, deps } = h();
    const p = await newProject(deps, { timezone: 'Europe/Berlin', currency: 'EUR' });
    const token = await mcpToken(deps, p);
    const ios = await f.storeListing(deps, p, 'IOS', 'App Store');
    const domain = await f.domain(deps, p, { primary: true });

    const res = await callTool(app, token, 'get_project_info');

    expect(res.data).toEqual({
      id: p.project.id,
      name: p.project.name,
      timezone: 'Europe/Berlin',
      currency: 'EUR',
      website: null,
      created_at: p.project.createdAt.toISOString(),
      platforms: ['IOS'],
      store_listings: [{ store_listing_id: ios.id, name: 'App Store', platform: 'IOS', store_url: ios.storeUrl }],
      domains: [{ name: domain.name, is_primary: true }],
      billing_suspended: false,
    });
    const text = JSON.stringify(res.data);
    for (const secret of [p.serverKey, p.token, token]) {
      expect(text).not.toContain(secret);
    }
  });
});

describe('get_billing_usage', () => {
  it('when installs cross the 25k free pool, then free, billable and the amount at $0.01 per attributed install', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const token = await mcpToken(deps, p);
    const c = await f.campaign(app, p, { name: 'Paid' });
    const gone = await f.campaign(app, p, { name: 'Gone' });
    const install = (campaignId: number, day: string) => r.attribution(p, r.newInstall({ campaignId }, day));
    await r.insertFacts(deps, 'attributions', [
      ...Array.from({ length: 24_998 }, () => install(c.id, '2024-12-15')),
      ...[c.id, c.id, gone.id, 0, 0].map((id) => install(id, '2025-01-20')),
    ]);
    await app.inject({ method: 'DELETE', url: `/api/v1/campaigns/${gone.display_id}`, headers: p.headers });
    const real = deps.now;
    deps.now = () => Date.parse('2025-01-25T12:00:00Z');
    try {
      const current = await callTool(app, token, 'get_billing_usage');
      const december = await callTool(app, token, 'get_billing_usage', { month: '2024-12' });
      const both = await callTool(app, token, 'get_billing_usage', { from: '2024-12-01', to: '2025-01-31' });
      const mixed = await callTool(app, token, 'get_billing_usage', { month: '2025-01', from: '2025-01-01' });
      const badMonth = await callTool(app, token, 'get_billing_usage', { month: '2025-13' });

      expect(current.data).toMatchObject({
        period: { month: '2025-01', from: '2025-01-01', to: '2025-01-31', timezone: 'UTC' },
        attributed_installs: 3, // the deleted campaign's install was attributed, so billable; organic never
        free_installs: 2,
        billable_installs: 1,
        free_pool: { size: 25_000, used_before_period: 24_998, remaining_after_period: 0 },
        price_per_install_usd: '0.01',
        amount_usd: '0.01',
        billing_suspended: false,
        payment_link: null,
      });
      expect(december.data).toMatchObject({
        attributed_installs: 24_998,
        free_installs: 24_998,
        billable_installs: 0,
        amount_usd: '0.00',
        free_pool: { used_before_period: 0, remaining_after_period: 2 },
      });
      expect(both.data).toMatchObject({ period: { month: null }, attributed_installs: 25_001, billable_installs: 1 });
      expect(mixed).toMatchObject({
        isError: true,
        data: { msg: 'Give either month (YYYY-MM) or from and to (YYYY-MM-DD), not both.', status: 400 },
      });
      expect(badMonth).toMatchObject({
        isError: true,
        data: { msg: "Invalid month '2025-13'. Use YYYY-MM.", status: 400 },
      });
    } finally {
      deps.now = real;
    }
  });
});

describe('tenant isolation', () => {
  it('when project A’s token asks about project B’s campaigns, users, devices, installs, events or installs billed, then it sees only A', async () => {
    const { app, deps } = h();
    const a = await newProject(deps);
    const b = await newProject(deps);
    const tokenA = await mcpToken(deps, a);
    const tokenB = await mcpToken(deps, b);
    const bInstall = await attributedInstall(h(), b, { name: 'Secret B' });
    await deps.sql`UPDATE installs SET user_id = 'shared-user'
      WHERE project_id = ${b.project.id} AND install_instance_id = ${bInstall.iid}`;
    const x = r.newInstall({ campaignId: bInstall.campaign.id }, '2025-01-10');
    await r.insertFacts(deps, 'attributions', [r.attribution(b, x)]);
    await r.insertFacts(deps, 'events', [r.event(b, x, 'shared-user', 'b_only_event', '2025-01-10')]);

    const info = await callTool(app, tokenA, 'get_project_info');
    const campaigns = await callTool(app, tokenA, 'list_campaigns');
    const byUser = await callTool(app, tokenA, 'lookup_attribution', { user_id: 'shared-user' });
    const byDevice = await callTool(app, tokenA, 'lookup_attribution', { device_identifier: bInstall.gaid });
    const byInstall = await callTool(app, tokenA, 'lookup_attribution', { install_instance_id: bInstall.iid });
    const stats = await callTool(app, tokenA, 'get_project_stats');
    const events = await callTool(app, tokenA, 'list_events');
    const billing = await callTool(app, tokenA, 'get_billing_usage', { from: '2024-01-01', to: '2026-12-31' });
    const bSees = await callTool(app, tokenB, 'lookup_attribution', { user_id: 'shared-user' });

    expect(info.data.id).toBe(a.project.id);
    expect(campaigns.data.total_campaigns).toBe(0);
    expect(JSON.stringify(campaigns.data)).not.toContain('Secret B');
    expect(byUser.data).toEqual({ found: false, attribution: null });
    expect(byDevice.data).toEqual({ found: false, attribution: null });
    expect(byInstall.data).toEqual({ found: false, attribution: null });
    expect(stats.data).toMatchObject({ live_campaigns: 0, total: { installs: 0 } });
    expect(events.data.events).toEqual([]);
    expect(billing.data).toMatchObject({ attributed_installs: 0 });
    expect(bSees.data).toMatchObject({ found: true, attribution: { campaign_name: 'Secret B' } });
  });
});
