// Fixture and oracles of the tenant-isolation tests (catalog D4, I6): a project "A" with every kind
// of data (domain, listings, campaigns, an attributed install with a click, a user, an event, a
// payment, spend, a SKAN schema, a Meta connection, a RevenueCat connection, an MCP token, a cached
// attribution answer), everything A owns in Postgres and ClickHouse as one comparable snapshot, and
// A's campaign report as the bytes the route would send.
import { randomUUID } from 'node:crypto';
import type { Deps } from '../../src/deps.ts';
import { createMcpToken } from '../../src/domain/mcp/create-mcp-token.ts';
import { buildCampaignReport } from '../../src/domain/reporting/campaign-report.ts';
import { parseReportQuery } from '../../src/http/parse/v1/reporting.ts';
import { presentReport } from '../../src/http/present/report-row.ts';
import { attributedInstall, attributionData, flushFacts, post } from './client.ts';
import { signUp } from './commerce.ts';
import { connectMeta } from './deliveries.ts';
import * as f from './factories.ts';
import { type Harness, newProject, type TestProject } from './harness.ts';

export type TenantA = {
  p: TestProject;
  domain: string;
  listings: string[];
  campaign: f.CreatedCampaign;
  installCampaign: { displayId: string; name: string };
  iid: string;
  gaid: string;
  clickId: string;
  userId: string;
  paymentId: string;
  /** A's MCP token and RevenueCat webhook token. */
  mcpToken: string;
  rcToken: string;
  /** Values only A's own answers may contain. */
  markers: string[];
};

function expectStatus(what: string, status: number, expected: number, body: string): void {
  if (status !== expected) {
    throw new Error(`${what} answered ${status}: ${body}`);
  }
}

/** Project A with one of everything; its attribution answer is read once, so it is cached. */
export async function tenantA(h: Harness): Promise<TenantA> {
  const { app, deps } = h;
  const tag = randomUUID().slice(0, 8);
  const p = await newProject(deps);
  const domain = await f.domain(deps, p, { primary: true });
  const android = await f.storeListing(deps, p, 'ANDROID', `Alpha Play ${tag}`);
  const ios = await f.storeListing(deps, p, 'IOS', `Alpha iOS ${tag}`);
  const campaign = await f.campaign(app, p, {
    name: `Alpha campaign ${tag}`,
    store_listing_ids: [android.id, ios.id],
    deeplink: `alpha${tag}://promo`,
  });
  const installName = `Alpha install ${tag}`;
  const inst = await attributedInstall(h, p, { name: installName });
  await connectMeta(deps, p); // A's Meta connection and mappings (needs SECRETS_KEY in the harness)
  const userId = `alpha-user-${tag}`;
  await signUp(h, p, inst.iid, userId);
  const paymentId = `alpha-pay-${tag}`;
  const base = { token: p.token, platform: 'ANDROID', install_instance_id: inst.iid };
  const ev = await post(h, 'capture-event', { ...base, event_name: 'level_up', event_data: { amount: 3 } });
  expectStatus('capture-event', ev.statusCode, 200, ev.body);
  const pay = await post(h, 'capture-payment', { ...base, amount: 19.99, payment_id: paymentId });
  expectStatus('capture-payment', pay.statusCode, 201, pay.body);
  const day = new Date().toISOString().slice(0, 10);
  const spend = await app.inject({
    method: 'PUT',
    url: '/api/v1/spend',
    headers: p.headers,
    payload: { rows: [{ day, campaign_display_id: inst.campaign.displayId, amount: '12.5' }] },
  });
  expectStatus('spend', spend.statusCode, 200, spend.body);
  const skan = await app.inject({
    method: 'PUT',
    url: '/api/v1/skan/schema',
    headers: p.headers,
    payload: { rules: [{ fine: 1, coarse: 'low', lock: false, conditions: [{ type: 'signup' }] }] },
  });
  expectStatus('skan schema', skan.statusCode, 201, skan.body);
  const rc = await app.inject({ method: 'PUT', url: '/api/v1/connections/revenuecat', headers: p.headers });
  expectStatus('revenuecat connection', rc.statusCode, 200, '');
  const mcp = await createMcpToken(deps, p.project.id, { name: 'alpha' });
  const cached = await attributionData(h, p.token, inst.iid);
  expectStatus('attribution-data', cached.statusCode, 200, cached.body);
  await flushFacts(h);
  return {
    p,
    domain: domain.name,
    listings: [android.id, ios.id],
    campaign,
    installCampaign: { displayId: inst.campaign.displayId, name: installName },
    iid: inst.iid,
    gaid: inst.gaid,
    clickId: inst.clickId,
    userId,
    paymentId,
    mcpToken: mcp.token,
    rcToken: rc.json().data.authorization_token as string,
    markers: [
      p.project.id,
      campaign.name,
      campaign.display_id,
      installName,
      inst.campaign.displayId,
      inst.iid,
      inst.gaid,
      inst.clickId,
      userId,
      paymentId,
      domain.name,
      `alpha${tag}`,
      `Alpha Play ${tag}`,
      tag,
    ],
  };
}

/** Markers of A found in an answer, ignoring those the request itself carried. */
export function leakedMarkers(a: TenantA, request: string, answer: string): string[] {
  return a.markers.filter((m) => !request.includes(m) && answer.includes(m));
}

/**
 * The select list and FROM of a ClickHouse table's snapshot. An aggregate table's parts merge in the
 * background (two rows of a key become one, same totals): it is read merged (FINAL, states
 * finalized), so a merge is not taken for a change. A test-only read; the service never uses FINAL.
 */
async function snapshotColumns(deps: Deps, table: string, engine: string): Promise<string> {
  if (engine !== 'AggregatingMergeTree') {
    return `* FROM ${table}`;
  }
  const columns = (await (
    await deps.ch.query({
      query: `SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = {t:String}
        ORDER BY position`,
      format: 'JSONEachRow',
      query_params: { t: table },
    })
  ).json()) as { name: string; type: string }[];
  const list = columns.map((c) =>
    c.type.startsWith('AggregateFunction(') ? `finalizeAggregation(\`${c.name}\`) AS \`${c.name}\`` : `\`${c.name}\``,
  );
  return `${list.join(', ')} FROM ${table} FINAL`;
}

/** Everything the project owns: every Postgres table and ClickHouse table with a project_id column. */
export async function tenantSnapshot(deps: Deps, projectId: string): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  const pgTables = await deps.sql<{ name: string }[]>`
    SELECT c.table_name AS name FROM information_schema.columns c
    JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
    WHERE c.table_schema = 'public' AND c.column_name = 'project_id' AND t.table_type = 'BASE TABLE'
    ORDER BY 1`;
  for (const { name } of pgTables) {
    const rows = await deps.sql<{ r: string }[]>`
      SELECT t::text AS r FROM ${deps.sql(name)} t WHERE t.project_id::text = ${projectId}`;
    out[`pg.${name}`] = rows.map((x) => x.r).sort();
  }
  const chTables = (await (
    await deps.ch.query({
      query: `SELECT c.table AS name, any(t.engine) AS engine FROM system.columns c JOIN system.tables t
        ON t.database = c.database AND t.name = c.table
        WHERE c.database = currentDatabase() AND c.name = 'project_id' AND t.engine NOT IN ('MaterializedView', 'View')
        GROUP BY name ORDER BY name`,
      format: 'JSONEachRow',
    })
  ).json()) as { name: string; engine: string }[];
  for (const { name, engine } of chTables) {
    const rs = await deps.ch.query({
      query: `SELECT ${await snapshotColumns(deps, name, engine)} WHERE toString(project_id) = {p:String}`,
      format: 'JSONEachRow',
      query_params: { p: projectId },
    });
    out[`ch.${name}`] = ((await rs.json()) as unknown[]).map((r) => JSON.stringify(r)).sort();
  }
  return out;
}

/** A's campaign report for `query` as the route would send it (the 60 s cache bypassed). */
export async function reportBytes(deps: Deps, p: TestProject, query: Record<string, string> = {}): Promise<string> {
  const report = await buildCampaignReport(deps, p.project, parseReportQuery(query));
  return JSON.stringify(presentReport(report, deps.config.publicUrl));
}
