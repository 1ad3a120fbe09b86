// Catalog §4d D4 (OWASP API1/BOLA) and I6: with project B's server key or token on every one of
// project A's identifiers, over every /api/v1 and /api/client endpoint that takes one, B gets the
// "not yours" answer, never a byte of A's data (A's cached attribution answer included), and A's
// rows in Postgres and ClickHouse and A's report stay exactly as they were. Then a fast-check
// property: any sequence of B's operations leaves A's report byte-equal.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { MSG } from '../../src/http/messages.ts';
import { flushFacts } from '../support/client.ts';
import * as f from '../support/factories.ts';
import { newProject, type TestProject, useHarness } from '../support/harness.ts';
import { figure, Tally } from '../support/security-routes.ts';
import { leakedMarkers, reportBytes, type TenantA, tenantA, tenantSnapshot } from '../support/security-tenant.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false', SECRETS_KEY: 'ef'.repeat(32) } });

type Probe = {
  name: string;
  method: InjectOptions['method'];
  url: string;
  payload?: Record<string, unknown>;
  /** The expected answer: a status, and the exact body when the spec fixes it. */
  status: number | number[];
  body?: unknown;
  /** Extra check on the parsed body (e.g. zero rows). */
  check?: (json: Record<string, unknown>) => boolean;
};

let a: TenantA;
let b: TestProject;
let bDomain = '';

beforeAll(async () => {
  const { app, deps } = h();
  a = await tenantA(h());
  b = await newProject(deps);
  bDomain = (await f.domain(deps, b, { primary: true })).name;
  await f.storeListing(deps, b, 'ANDROID', 'Beta Play');
  await f.campaign(app, b, { name: 'Beta campaign' });
});

const nf = (msg: string, status = 404) => ({ msg, status });

function v1Probes(): Probe[] {
  const id = a.campaign.display_id;
  const link = `https://${a.domain}/?c=${id}`;
  return [
    {
      name: 'list ?link=A link',
      method: 'GET',
      url: `/api/v1/campaigns?link=${encodeURIComponent(link)}`,
      status: 400,
      body: nf(MSG.invalidRequestParameters, 400),
    },
    {
      name: 'list ?link=A short link',
      method: 'GET',
      url: `/api/v1/campaigns?link=${encodeURIComponent(`https://${a.domain}/${id}`)}`,
      status: 400,
      body: nf(MSG.invalidRequestParameters, 400),
    },
    {
      name: 'list ?domain=A domain',
      method: 'GET',
      url: `/api/v1/campaigns?domain=${a.domain}`,
      status: 400,
      body: nf(MSG.invalidDomain(a.domain), 400),
    },
    {
      name: 'attributed-users ?display_id=A',
      method: 'GET',
      url: `/api/v1/attributed-users?display_id=${a.installCampaign.displayId}`,
      status: 404,
      body: nf(MSG.resourceNotFound),
    },
    {
      name: 'get-attribution-result ?user_id=A user',
      method: 'GET',
      url: `/api/v1/get-attribution-result?user_id=${a.userId}`,
      status: 204,
    },
    {
      name: 'get-attribution-result ?device_identifier=A gaid',
      method: 'GET',
      url: `/api/v1/get-attribution-result?device_identifier=${a.gaid}`,
      status: 204,
    },
    ...(['PATCH', 'PUT'] as const).map((method) => ({
      name: `${method} A campaign`,
      method,
      url: `/api/v1/campaigns/${id}`,
      payload: { name: 'taken over', active: false },
      status: 404,
      body: nf(MSG.campaignNotFound),
    })),
    {
      name: 'DELETE A campaign',
      method: 'DELETE',
      url: `/api/v1/campaigns/${a.installCampaign.displayId}`,
      status: 404,
      body: nf(MSG.campaignNotFound),
    },
    {
      name: 'reporting ?search=A name',
      method: 'GET',
      url: `/api/v1/reporting/campaigns?search=${encodeURIComponent(a.installCampaign.name)}`,
      status: 200,
      check: (j) => (j.data as { campaigns: unknown[] }).campaigns.length === 0,
    },
    {
      name: 'reporting ?search=A link',
      method: 'GET',
      url: `/api/v1/reporting/campaigns?search=${encodeURIComponent(`https://${a.domain}/${a.installCampaign.displayId}`)}`,
      status: 200,
      check: (j) => (j.data as { campaigns: unknown[] }).campaigns.length === 0,
    },
    {
      name: 'create-campaign with A listings',
      method: 'POST',
      url: '/api/v1/create-campaign',
      payload: { name: 'steal listing', store_listing_ids: [a.listings[0]] },
      status: 400,
      body: nf(MSG.storeListingsNotFound([String(a.listings[0])]), 400),
    },
    {
      name: 'create-campaign on A domain',
      method: 'POST',
      url: '/api/v1/create-campaign',
      payload: { name: 'steal domain', domain: a.domain },
      status: 400,
      body: nf(MSG.domainNotFound, 400),
    },
    {
      name: 'DELETE A user',
      method: 'DELETE',
      url: `/api/v1/users/${a.userId}`,
      status: 404,
      body: nf(MSG.userNotFound),
    },
    {
      name: 'server capture-event for A user',
      method: 'POST',
      url: '/api/v1/capture-event',
      payload: { user_id: a.userId, event_name: 'level_up', event_data: { amount: 5 } },
      status: 200,
    },
    {
      name: 'server capture-payment for A user',
      method: 'POST',
      url: '/api/v1/capture-payment',
      payload: { user_id: a.userId, amount: 50, payment_id: `${a.paymentId}-b` },
      status: 200,
    },
    {
      name: 'server remove-payment of A payment',
      method: 'POST',
      url: '/api/v1/remove-payment',
      payload: { user_id: a.userId, payment_id: a.paymentId },
      status: 400,
    },
    {
      name: 'spend on A campaign',
      method: 'PUT',
      url: '/api/v1/spend',
      payload: { rows: [{ day: new Date().toISOString().slice(0, 10), campaign_display_id: id, amount: '999' }] },
      status: 200,
      check: (j) => (j.data as { accepted: number }).accepted === 0,
    },
    { name: 'skan schema (A has one)', method: 'GET', url: '/api/v1/skan/schema', status: 404 },
    // Connections and SKAN writes are scoped by the key alone: B's writes must land on B only.
    {
      name: 'PUT meta connection (B own; A has none to touch)',
      method: 'PUT',
      url: '/api/v1/connections/meta',
      payload: { dataset_id: '555', access_token: 'EAAGbetabetabetabetabeta', active: true },
      status: 200,
    },
    {
      name: 'PUT meta mappings',
      method: 'PUT',
      url: '/api/v1/connections/meta/mappings',
      payload: { mappings: [{ kind: 'event', name: 'level_up', to: 'Purchase' }] },
      status: [200, 400],
    },
    {
      name: 'PUT skan schema (B own)',
      method: 'PUT',
      url: '/api/v1/skan/schema',
      payload: { rules: [{ fine: 63, coarse: 'high', lock: true, conditions: [{ type: 'signup' }] }] },
      status: 201,
    },
    {
      name: 'list campaigns (B sees only its own)',
      method: 'GET',
      url: '/api/v1/campaigns?limit=1000',
      status: 200,
      check: (j) => (j.data as { total_campaigns: number }).total_campaigns <= 3,
    },
    // A display id names one campaign across projects (the service host's links carry no project).
    {
      name: 'create-campaign with A display id as custom id',
      method: 'POST',
      url: '/api/v1/create-campaign',
      payload: { name: 'same id', custom_display_id: a.campaign.display_id, domain: bDomain },
      status: 400,
      body: nf(MSG.displayIdTaken, 400),
    },
  ];
}

function clientProbes(): Probe[] {
  const base = { token: b.token, platform: 'ANDROID', install_instance_id: a.iid };
  const p = (name: string, path: string, extra: Record<string, unknown>, status: number | number[]): Probe => ({
    name,
    method: 'POST',
    url: `/api/client/${path}`,
    payload: { ...base, ...extra },
    status,
  });
  return [
    // B's token cannot see A's install at all: "not found", never A's cached answer.
    {
      ...p('attribution-data with A install (A answer cached)', 'attribution-data', {}, 400),
      body: nf(MSG.installNotFound, 400),
    },
    p(
      'handle-deeplink with A install',
      'handle-deeplink',
      { link: `https://${a.domain}/${a.campaign.display_id}` },
      [200, 400, 404],
    ),
    p(
      'trigger with A install and A user',
      'trigger',
      { user_data: { id: a.userId }, data: { device_data: {} } },
      [200, 400],
    ),
    p('set-user-data for A install', 'set-user-data', { user_data: { id: a.userId, email: 'x@y.z' } }, [200, 400]),
    p(
      'customer-user-id for A install',
      'customer-user-id',
      { user_id: a.userId, customer_user_id: 'cu' },
      [200, 400, 404],
    ),
    p('capture-event on A install', 'capture-event', { event_name: 'level_up' }, [200, 201]),
    p('capture-payment on A install', 'capture-payment', { amount: 5, payment_id: `${a.paymentId}-c` }, [200, 201]),
    p('remove-captured-payment of A payment', 'remove-captured-payment', { payment_id: a.paymentId }, [200, 400, 404]),
    p(
      'update-push-token on A install',
      'update-push-token',
      { push_token: 'tok-b', fcm_token: 'tok-b' },
      [200, 400, 404],
    ),
    p('integrations on A install', 'integrations', { integration_data: { clevertapId: 'x' } }, [200, 400]),
    p('init with A install', 'init', { device_data: {} }, 202),
    // Now B has its own install with that id: B's answer (organic or pending), never A's campaign.
    p('attribution-data with A install after B init', 'attribution-data', {}, 200),
  ];
}

async function run(probe: Probe, headers: Record<string, string>) {
  const res = await h().app.inject({
    method: probe.method,
    url: probe.url,
    headers,
    ...(probe.payload ? { payload: probe.payload } : {}),
  });
  const statuses = Array.isArray(probe.status) ? probe.status : [probe.status];
  const problems: string[] = [];
  if (!statuses.includes(res.statusCode)) {
    problems.push(`status ${res.statusCode}`);
  }
  if (probe.body !== undefined && res.body !== JSON.stringify(probe.body)) {
    problems.push('body');
  }
  if (probe.check && !(res.body && probe.check(res.json()))) {
    problems.push('check');
  }
  const leaked = leakedMarkers(a, `${probe.url} ${JSON.stringify(probe.payload ?? {})}`, res.body);
  return { res, problems, leaked };
}

describe('D4 tenant isolation', () => {
  it("when B's key and token are used on every A identifier, then B gets the not-yours answers, no A data, and A is unchanged", async () => {
    const { deps } = h();
    const before = await tenantSnapshot(deps, a.p.project.id);
    const reportBefore = await reportBytes(deps, a.p);
    const tally = new Tally();
    const wrong = new Tally();
    for (const probe of v1Probes()) {
      const { res, problems, leaked } = await run(probe, b.headers);
      tally.check(leaked.length === 0, `${probe.name}: leaked ${leaked.join(', ')}`);
      wrong.check(problems.length === 0, `${probe.name}: ${problems.join(', ')}: ${res.statusCode} ${res.body}`);
    }
    for (const probe of clientProbes()) {
      const { res, problems, leaked } = await run(probe, {});
      tally.check(leaked.length === 0, `${probe.name}: leaked ${leaked.join(', ')}: ${res.body}`);
      wrong.check(problems.length === 0, `${probe.name}: ${problems.join(', ')}: ${res.statusCode} ${res.body}`);
    }
    await flushFacts(h());
    const after = await tenantSnapshot(deps, a.p.project.id);
    const changed = Object.keys(before).filter((t) => JSON.stringify(before[t]) !== JSON.stringify(after[t]));
    const reportAfter = await reportBytes(deps, a.p);
    figure('D4 probes', {
      probes: tally.probes,
      leaked: tally.bad,
      wrong_status: wrong.bad,
      a_tables_changed: changed.length,
      a_report_changed: reportBefore === reportAfter ? 0 : 1,
    });

    expect(Object.keys(before).length).toBeGreaterThan(10);
    expect(reportBefore).toContain(a.installCampaign.name);
    expect(before['pg.installs']?.length).toBeGreaterThan(0);
    expect([...tally.failures, ...wrong.failures]).toEqual([]);
    expect(changed).toEqual([]);
    expect(reportAfter).toBe(reportBefore);
  });

  it("when A's own key asks, then the same identifiers answer with A's data (the probes are meaningful)", async () => {
    const own = await run(
      {
        name: 'A attributed-users',
        method: 'GET',
        url: `/api/v1/attributed-users?display_id=${a.installCampaign.displayId}`,
        status: 200,
      },
      a.p.headers,
    );
    const result = await h().app.inject({
      method: 'GET',
      url: `/api/v1/get-attribution-result?user_id=${a.userId}`,
      headers: a.p.headers,
    });
    const cached = await h().app.inject({
      method: 'POST',
      url: '/api/client/attribution-data',
      payload: { token: a.p.token, platform: 'ANDROID', install_instance_id: a.iid },
    });

    expect(own.res.statusCode).toBe(200);
    expect(own.res.body).toContain(a.userId);
    expect(result.statusCode).toBe(200);
    expect(cached.body).toContain(a.installCampaign.displayId);
  });
});

type Op = { kind: string; run: () => Promise<unknown> };

function bOps(): fc.Arbitrary<Op>[] {
  const app = () => h().app;
  const v1 = (method: InjectOptions['method'], url: string, payload?: Record<string, unknown>) => () =>
    app().inject({ method, url, headers: b.headers, ...(payload ? { payload } : {}) });
  const client = (path: string, payload: Record<string, unknown>) => () =>
    app().inject({
      method: 'POST',
      url: `/api/client/${path}`,
      payload: { token: b.token, platform: 'ANDROID', ...payload },
    });
  const aId = fc.constantFrom(a.campaign.display_id, a.installCampaign.displayId, 'no-such-id');
  const iid = fc.constantFrom(a.iid, randomUUID());
  const user = fc.constantFrom(a.userId, 'beta-user');
  const amount = fc.integer({ min: 1, max: 1000 });
  return [
    fc
      .string({ maxLength: 20 })
      .map((name) => ({ kind: 'create', run: v1('POST', '/api/v1/create-campaign', { name: `b ${name}` }) })),
    fc.tuple(aId, fc.boolean()).map(([id, active]) => ({
      kind: 'edit',
      run: v1('PATCH', `/api/v1/campaigns/${id}`, { name: 'b edit', active }),
    })),
    aId.map((id) => ({ kind: 'delete', run: v1('DELETE', `/api/v1/campaigns/${id}`) })),
    fc.tuple(aId, amount).map(([id, n]) => ({
      kind: 'spend',
      run: v1('PUT', '/api/v1/spend', {
        rows: [{ day: new Date().toISOString().slice(0, 10), campaign_display_id: id, amount: String(n) }],
      }),
    })),
    fc.tuple(user, amount).map(([u, n]) => ({
      kind: 'server-payment',
      run: v1('POST', '/api/v1/capture-payment', { user_id: u, amount: n, payment_id: randomUUID() }),
    })),
    user.map((u) => ({
      kind: 'server-event',
      run: v1('POST', '/api/v1/capture-event', { user_id: u, event_name: 'level_up' }),
    })),
    user.map((u) => ({ kind: 'delete-user', run: v1('DELETE', `/api/v1/users/${u}`) })),
    fc.constant({
      kind: 'remove-payment',
      run: v1('POST', '/api/v1/remove-payment', { user_id: a.userId, payment_id: a.paymentId }),
    }),
    iid.map((i) => ({ kind: 'init', run: client('init', { install_instance_id: i, device_data: {} }) })),
    fc.tuple(iid, user).map(([i, u]) => ({
      kind: 'trigger',
      run: client('trigger', { install_instance_id: i, user_data: { id: u }, data: { device_data: {} } }),
    })),
    fc.tuple(iid, amount).map(([i, n]) => ({
      kind: 'client-payment',
      run: client('capture-payment', { install_instance_id: i, amount: n, payment_id: randomUUID() }),
    })),
    iid.map((i) => ({
      kind: 'client-event',
      run: client('capture-event', { install_instance_id: i, event_name: 'level_up' }),
    })),
    iid.map((i) => ({
      kind: 'remove-captured-payment',
      run: client('remove-captured-payment', { install_instance_id: i, payment_id: a.paymentId }),
    })),
  ];
}

describe('D4 property: B never changes A', () => {
  it("when fast-check runs random sequences of B's operations, then A's report and rows stay byte-equal", async () => {
    const { deps } = h();
    await flushFacts(h());
    const reportBefore = await reportBytes(deps, a.p);
    const rowsBefore = JSON.stringify(await tenantSnapshot(deps, a.p.project.id));
    let runs = 0;
    let ops = 0;
    let changed = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(...bOps()), { minLength: 1, maxLength: 8 }), async (seq) => {
        runs += 1;
        for (const op of seq) {
          ops += 1;
          await op.run();
        }
        await flushFacts(h());
        const same =
          (await reportBytes(deps, a.p)) === reportBefore &&
          JSON.stringify(await tenantSnapshot(deps, a.p.project.id)) === rowsBefore;
        changed += same ? 0 : 1;
        return same;
      }),
      { numRuns: 15 },
    );
    figure('D4 property', { runs, operations: ops, a_changed: changed });

    expect(changed).toBe(0);
  }, 120_000);
});
