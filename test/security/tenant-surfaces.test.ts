// Catalog §4d D4 (OWASP API1/BOLA) and I6 on the MCP server and the RevenueCat webhook: project B's
// MCP token, through every tool, and B's RevenueCat token, through the webhook (purchases for a user
// id both projects registered, a refund naming A's payment id) and B's connection routes, never read
// a byte of A's data (A's cached attribution answer included) nor change a row of A, and A's report
// and A's own tokens keep working. A project with no data reads nothing but its own emptiness. Then
// a fast-check property: any sequence of B's tool calls and webhook events leaves A byte-equal.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createMcpToken } from '../../src/domain/mcp/create-mcp-token.ts';
import { MSG } from '../../src/http/messages.ts';
import { attribute, flushFacts, init } from '../support/client.ts';
import { signUp } from '../support/commerce.ts';
import * as f from '../support/factories.ts';
import { newProject, type TestProject, useHarness } from '../support/harness.ts';
import { figure, Tally } from '../support/security-routes.ts';
import { callTool, connectRevenueCat, rcEvent, sendWebhook } from '../support/security-surfaces.ts';
import { leakedMarkers, reportBytes, type TenantA, tenantA, tenantSnapshot } from '../support/security-tenant.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false', SECRETS_KEY: 'ef'.repeat(32) } });

let a: TenantA;
let b: TestProject;
let bMcp = '';
let bRc = '';

beforeAll(async () => {
  const { app, deps } = h();
  a = await tenantA(h());
  b = await newProject(deps);
  await f.domain(deps, b, { primary: true });
  await f.campaign(app, b, { name: 'Beta campaign' });
  // B registers a user with A's user id on an install of its own: ids are per project.
  const iid = randomUUID();
  await init(h(), b.token, { install_instance_id: iid });
  await attribute(h(), b, iid);
  await signUp(h(), b, iid, a.userId);
  bMcp = (await createMcpToken(deps, b.project.id, { name: 'beta' })).token;
  bRc = await connectRevenueCat(h(), b);
});

type Probe = { name: string; send: () => Promise<{ status: number; body: string }>; ok: (body: string) => boolean };

const tool = (name: string, args: Record<string, unknown>, ok: (d: Record<string, unknown>) => boolean): Probe => ({
  name: `${name} ${JSON.stringify(args)}`,
  send: async () => {
    const t = await callTool(h().app, bMcp, name, args);
    return { status: t.status, body: t.body };
  },
  ok: (body) => {
    const result = (JSON.parse(body) as { result?: { content: { text: string }[] } }).result;
    return result !== undefined && ok(JSON.parse(result.content[0]?.text ?? '{}') as Record<string, unknown>);
  },
});

const hook = (name: string, event: Record<string, unknown>, ok: (d: Record<string, unknown>) => boolean): Probe => ({
  name: `webhook ${name}`,
  send: async () => {
    const res = await sendWebhook(h().app, bRc, rcEvent({ id: randomUUID(), ...event }));
    return { status: res.statusCode, body: res.body };
  },
  ok: (body) => ok((JSON.parse(body) as { data: Record<string, unknown> }).data),
});

const notFound = (d: Record<string, unknown>) => d.found === false && d.attribution === null;
const refused = (msg: string) => (d: Record<string, unknown>) => d.msg === msg && d.status === 400;

function probes(): Probe[] {
  const link = `https://${a.domain}/?c=${a.campaign.display_id}`;
  return [
    tool('get_project_info', {}, (d) => d.id === b.project.id),
    tool('get_project_stats', {}, (d) => (d.total as { installs: number }).installs <= 1),
    tool('list_campaigns', { limit: 1000 }, (d) => d.total_campaigns === 1),
    tool('list_campaigns', { domain: a.domain }, refused(MSG.invalidDomain(a.domain))),
    tool('list_campaigns', { link }, refused(MSG.invalidRequestParameters)),
    tool('list_events', {}, (d) => Array.isArray(d.events)),
    // B has its own user with A's user id: B's install (organic), never A's campaign.
    tool('lookup_attribution', { user_id: a.userId }, (d) => d.found === true),
    tool('lookup_attribution', { device_identifier: a.gaid }, notFound),
    // A's answer for this install is cached: B must not be served it.
    tool('lookup_attribution', { install_instance_id: a.iid }, notFound),
    tool('get_billing_usage', { from: '2020-01-01', to: '2030-12-31' }, (d) => d.attributed_installs === 0),
    hook(
      'purchase for the user id both registered',
      { app_user_id: a.userId, transaction_id: randomUUID() },
      (d) => d.result === 'stored',
    ),
    hook(
      'purchase with A payment id',
      { app_user_id: a.userId, transaction_id: a.paymentId },
      (d) => d.result === 'stored',
    ),
    hook(
      'refund naming A payment id',
      {
        type: 'CANCELLATION',
        cancel_reason: 'CUSTOMER_SUPPORT',
        price: -4.99,
        app_user_id: a.userId,
        transaction_id: a.paymentId,
      },
      (d) => d.result === 'stored' && d.removed === 1,
    ),
    hook(
      'refund of A payment for an unknown user',
      {
        type: 'CANCELLATION',
        cancel_reason: 'CUSTOMER_SUPPORT',
        app_user_id: 'nobody',
        aliases: [a.userId],
        transaction_id: a.paymentId,
      },
      (d) => d.removed === 0,
    ),
    {
      name: 'GET B connection',
      send: async () => {
        const res = await h().app.inject({ method: 'GET', url: '/api/v1/connections/revenuecat', headers: b.headers });
        return { status: res.statusCode, body: res.body };
      },
      ok: (body) => (JSON.parse(body) as { data: { token_prefix: string } }).data.token_prefix === bRc.slice(0, 7),
    },
    {
      name: 'DELETE B connection',
      send: async () => {
        const res = await h().app.inject({
          method: 'DELETE',
          url: '/api/v1/connections/revenuecat',
          headers: b.headers,
        });
        return { status: res.statusCode, body: res.body };
      },
      ok: (body) => (JSON.parse(body) as { data: { removed: boolean } }).data.removed === true,
    },
  ];
}

describe('D4 tenant isolation on the MCP server and the RevenueCat webhook', () => {
  it("when B's MCP token, webhook token and connection routes meet A's identifiers, then B gets its own answers, no A data, and A is unchanged", async () => {
    const { app, deps } = h();
    await flushFacts(h());
    const before = await tenantSnapshot(deps, a.p.project.id);
    const reportBefore = await reportBytes(deps, a.p);
    const leaks = new Tally();
    const wrong = new Tally();
    for (const probe of probes()) {
      const res = await probe.send();
      const leaked = leakedMarkers(a, probe.name, res.body);
      leaks.check(leaked.length === 0, `${probe.name}: leaked ${leaked.join(', ')}`);
      wrong.check(res.status === 200 && probe.ok(res.body), `${probe.name}: ${res.status} ${res.body.slice(0, 300)}`);
    }
    bRc = await connectRevenueCat(h(), b);
    await flushFacts(h());
    const after = await tenantSnapshot(deps, a.p.project.id);
    const changed = Object.keys(before).filter((t) => JSON.stringify(before[t]) !== JSON.stringify(after[t]));
    const reportAfter = await reportBytes(deps, a.p);
    // A's own tokens still work after B's connection was removed and issued again.
    const aHook = await sendWebhook(app, a.rcToken, rcEvent({ type: 'TEST' }));
    const aInfo = await callTool(app, a.mcpToken, 'lookup_attribution', { user_id: a.userId });
    figure('D4 surfaces', {
      probes: leaks.probes,
      leaked: leaks.bad,
      wrong_answer: wrong.bad,
      a_tables_changed: changed.length,
      a_report_changed: reportBefore === reportAfter ? 0 : 1,
    });

    expect(before['pg.revenuecat_connections']).toHaveLength(1);
    expect(before['pg.mcp_tokens']).toHaveLength(1);
    expect(before['pg.payments']?.length).toBeGreaterThan(0);
    expect([...leaks.failures, ...wrong.failures]).toEqual([]);
    expect(changed).toEqual([]);
    expect(reportAfter).toBe(reportBefore);
    expect(aHook.statusCode).toBe(200);
    expect(aInfo.data).toMatchObject({ found: true, attribution: { display_id: a.installCampaign.displayId } });
  });

  it('when a project with no data reads through its MCP token, then every tool answers its own emptiness', async () => {
    const { app, deps } = h();
    const c = await newProject(deps);
    const token = (await createMcpToken(deps, c.project.id, {})).token;
    const args: [string, Record<string, unknown>][] = [
      ['get_project_info', {}],
      ['get_project_stats', {}],
      ['list_campaigns', {}],
      ['list_events', {}],
      ['lookup_attribution', { user_id: a.userId }],
      ['lookup_attribution', { device_identifier: a.gaid }],
      ['lookup_attribution', { install_instance_id: a.iid }],
      ['get_billing_usage', { from: '2020-01-01', to: '2030-12-31' }],
    ];

    const answers = [];
    for (const [name, arg] of args) {
      answers.push(await callTool(app, token, name, arg));
    }

    expect(answers.map((t) => leakedMarkers(a, '', t.body))).toEqual(args.map(() => []));
    expect(answers.map((t) => t.isError)).toEqual(args.map(() => false));
    const [info, stats, list, events, byUser, byDevice, byInstall, billing] = answers.map((t) => t.data);
    expect(info).toMatchObject({ id: c.project.id, store_listings: [], domains: [] });
    expect(stats).toMatchObject({ live_campaigns: 0, total: { installs: 0, revenue_events: 0, signups: 0 } });
    expect(list).toMatchObject({ total_campaigns: 0, campaigns: [] });
    expect(events).toMatchObject({ events: [] });
    for (const lookup of [byUser, byDevice, byInstall]) {
      expect(lookup).toEqual({ found: false, attribution: null });
    }
    expect(billing).toMatchObject({ attributed_installs: 0, billable_installs: 0 });
  });
});

describe('D4 property: B never changes A through MCP or the webhook', () => {
  it("when fast-check runs random sequences of B's tool calls and webhook events on A's identifiers, then A's report and rows stay byte-equal", async () => {
    const { app, deps } = h();
    await flushFacts(h());
    const reportBefore = await reportBytes(deps, a.p);
    const rowsBefore = JSON.stringify(await tenantSnapshot(deps, a.p.project.id));
    const user = fc.constantFrom(a.userId, 'beta-user', '');
    const payment = fc.constantFrom(a.paymentId, randomUUID());
    const ops = fc.oneof(
      fc
        .record({
          name: fc.constantFrom(
            'get_project_stats',
            'list_campaigns',
            'list_events',
            'lookup_attribution',
            'get_billing_usage',
          ),
          user,
          iid: fc.constantFrom(a.iid, a.gaid),
        })
        .map(
          ({ name, user: u, iid }) =>
            () =>
              callTool(
                app,
                bMcp,
                name,
                name === 'lookup_attribution' ? { user_id: u || undefined, install_instance_id: iid } : {},
              ),
        ),
      fc
        .record({
          type: fc.constantFrom('INITIAL_PURCHASE', 'RENEWAL', 'CANCELLATION', 'BILLING_ISSUE', 'UNCANCELLATION'),
          refund: fc.boolean(),
          user,
          payment,
          amount: fc.integer({ min: 1, max: 1000 }),
        })
        .map(
          (e) => () =>
            sendWebhook(
              app,
              bRc,
              rcEvent({
                id: randomUUID(),
                type: e.type,
                app_user_id: e.user,
                aliases: [a.userId],
                transaction_id: e.payment,
                price: e.refund ? -e.amount : e.amount,
                ...(e.refund ? { cancel_reason: 'CUSTOMER_SUPPORT' } : {}),
              }),
            ),
        ),
    );
    let runs = 0;
    let count = 0;
    let changed = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(ops, { minLength: 1, maxLength: 8 }), async (seq) => {
        runs += 1;
        for (const op of seq) {
          count += 1;
          await op();
        }
        await flushFacts(h());
        const same =
          (await reportBytes(deps, a.p)) === reportBefore &&
          JSON.stringify(await tenantSnapshot(deps, a.p.project.id)) === rowsBefore;
        changed += same ? 0 : 1;
        return same;
      }),
      { numRuns: 12 },
    );
    figure('D4 surfaces property', { runs, operations: count, a_changed: changed });

    expect(changed).toBe(0);
  }, 120_000);
});
