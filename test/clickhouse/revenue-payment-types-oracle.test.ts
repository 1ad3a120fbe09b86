// A whole reporting scenario (report-scenario.ts: campaigns, ad sets,
// creatives, keywords, both platforms, withdrawals and refunded subscriptions sent as completed,
// some removed later) written through the real write paths while the views still had their
// pre-0031 queries (every completed payment was revenue), then ClickHouse migration 0031 run as
// the runner runs it, then every aggregate merged (background merges do this on their own
// schedule). After that every reader of revenue must agree with the raw facts under the new rule:
// the report (report-oracle.ts), MCP get_project_stats, v_campaign_daily, the monthly rollup,
// revenue_cohort and the README's example SQL for data engineers.
import { beforeAll, describe, expect, it } from 'vitest';
import { liveCampaigns } from '../../src/domain/mcp/stats-window.ts';
import { localDay } from '../../src/lib/time.ts';
import { callTool, mcpToken } from '../http/mcp/mcp-client.ts';
import { beforeMigration0031 } from '../support/ch-migrations.ts';
import { chJson, newProject, useHarness } from '../support/harness.ts';
import { expectedReport, type OracleInput, type OracleQuery } from '../support/report-oracle.ts';
import { deriveFacts } from '../support/report-oracle-facts.ts';
import { generateScenario, int, PAYMENT_TYPES, pick, seeded } from '../support/report-scenario.ts';
import { writeScenario } from '../support/report-writer.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

const SEED = 31_031;
const OPTS = { timezone: 'America/New_York', currency: 'USD', tag: 'R' };
const NOT_REVENUE =
  "('FUNDS_WITHDRAWAL', 'SUBSCRIPTION_CANCELLED', 'SUBSCRIPTION_REFUNDED', 'SUBSCRIPTION_BILLING_ISSUE')";

const AGGREGATES = [
  'campaign_daily',
  'campaign_platform_daily',
  'campaign_platform_monthly',
  'campaign_payment_daily',
  'revenue_cohort',
];

const nowMs = Date.now();
let o: OracleInput;

beforeAll(async () => {
  const s = generateScenario(SEED, nowMs, OPTS);
  const p = await newProject(h().deps, { timezone: OPTS.timezone, currency: OPTS.currency });
  const w = await beforeMigration0031(h().deps.ch, () => writeScenario(h(), p, s));
  for (const t of AGGREGATES) {
    await h().deps.ch.command({ query: `OPTIMIZE TABLE ${t} FINAL` });
  }
  const { facts, installs } = deriveFacts(s);
  o = { s, w, facts, installs, today: localDay(nowMs, OPTS.timezone), publicUrl: 'https://attr.test' };
  h().deps.now = () => nowMs;
}, 600_000);

const addDays = (d: string, n: number) =>
  new Date(Date.parse(`${d}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

const baseQuery = (): OracleQuery => ({
  from: null,
  to: null,
  active: null,
  network: null,
  metaAccountId: null,
  platform: null,
  search: null,
  view: 'user_acquisition',
  sortField: 'installs',
  sortOrder: 'descending',
  page: 1,
  limit: 100,
  events: null,
  paymentEvents: null,
  unique: [],
  costPer: null,
  activeUsers: 7,
});

function toUrl(q: OracleQuery): string {
  const u = new URLSearchParams();
  if (q.from) {
    u.set('from', q.from);
  }
  if (q.to) {
    u.set('to', q.to);
  }
  if (q.platform) {
    u.set('platform', q.platform.toLowerCase());
  }
  u.set('view', q.view);
  u.set('sort_field', q.sortField);
  u.set('sort_order', q.sortOrder);
  u.set('limit', String(q.limit));
  if (q.paymentEvents) {
    u.set('payment_events', q.paymentEvents.join(','));
  }
  if (q.unique.length > 0) {
    u.set('unique_user_events', q.unique.join(','));
  }
  if (q.costPer) {
    u.set('cost_per_event', q.costPer.join(','));
  }
  return u.toString();
}

async function report(q: OracleQuery) {
  const url = toUrl(q);
  const res = await h().app.inject({
    method: 'GET',
    url: `/api/v1/reporting/campaigns?${url}`,
    headers: o.w.p.headers,
  });
  expect(res.statusCode, url).toBe(200);
  return { url, data: res.json().data };
}

/** Days on which a payment of a type that is not revenue was captured (project-local). */
const excludedDays = () =>
  [
    ...new Set(
      o.s.payments
        .filter((x) => ['FUNDS_WITHDRAWAL', 'SUBSCRIPTION_REFUNDED'].includes(x.type))
        .map((x) => localDay(x.ts, OPTS.timezone)),
    ),
  ].sort();

/** One-day windows on each day a withdrawal or refund was captured, whole months, random windows. */
function windowQueries(): OracleQuery[] {
  const r = seeded(SEED);
  const windows: [string, string][] = excludedDays().map((d) => [d, d]);
  const firstOfMonth = `${o.today.slice(0, 7)}-01`;
  const prevMonth = `${addDays(firstOfMonth, -1).slice(0, 7)}-01`;
  windows.push([prevMonth, addDays(firstOfMonth, -1)], [prevMonth, o.today], ['2020-01-01', o.today]);
  for (let i = 0; i < 8; i++) {
    const a = addDays(o.today, -int(r, 0, 42));
    const b = addDays(o.today, -int(r, 0, 42));
    windows.push(a < b ? [a, b] : [b, a]);
  }
  return windows.map(([from, to]) => ({
    ...baseQuery(),
    from,
    to,
    platform: pick(r, [null, 'IOS', 'ANDROID'] as const),
    view: pick(r, ['user_acquisition', 'retargeting'] as const),
    sortField: pick(r, ['revenue', 'roas', 'installs']),
    sortOrder: pick(r, ['ascending', 'descending'] as const),
    paymentEvents: ['FUNDS_WITHDRAWAL', 'SUBSCRIPTION_REFUNDED', 'DEFAULT', 'FIRST_PAYMENT'],
    unique: ['FUNDS_WITHDRAWAL'],
  }));
}

/** The answer with every `name` of an ad set, creative or keyword left out. */
function withoutNames(v: unknown, level = false): unknown {
  if (Array.isArray(v)) {
    return v.map((x) => withoutNames(x, level));
  }
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => !(level && k === 'name'))
        .map(([k, x]) => [k, withoutNames(x, level || ['adSets', 'adCreatives', 'keywords'].includes(k))]),
    );
  }
  return v;
}

/** id → name of every ad set, creative and keyword of the answer. */
function namesOf(data: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const walk = (v: unknown, level: string | null) => {
    if (Array.isArray(v)) {
      for (const x of v) {
        walk(x, level);
      }
    } else if (v !== null && typeof v === 'object') {
      const rec = v as Record<string, unknown>;
      if (level !== null) {
        out[`${level}:${String(rec.id)}`] = rec.name;
      }
      for (const k of ['campaigns', 'adSets', 'adCreatives', 'keywords']) {
        if (k in rec) {
          walk(rec[k], k === 'campaigns' ? null : k);
        }
      }
    }
  };
  walk((data as { campaigns: unknown }).campaigns, null);
  return out;
}

describe('report after 0031 over data written before it', () => {
  it('when the scenario was written before 0031, then it holds completed withdrawals and refunds, some removed', () => {
    const completed = o.s.payments.filter((x) => x.status === 'PAYMENT_COMPLETED');
    expect(completed.filter((x) => x.type === 'FUNDS_WITHDRAWAL').length).toBeGreaterThan(0);
    expect(completed.filter((x) => x.type === 'SUBSCRIPTION_REFUNDED').length).toBeGreaterThan(0);
    expect(
      completed.filter((x) => ['FUNDS_WITHDRAWAL', 'SUBSCRIPTION_REFUNDED'].includes(x.type) && x.removedTs !== null)
        .length,
    ).toBeGreaterThan(0);
  });

  it('when the whole project and each platform are asked, then every row equals the oracle (revenue, roas, daywise, payment_events, levels)', async () => {
    for (const platform of [null, 'IOS', 'ANDROID'] as const) {
      const q = {
        ...baseQuery(),
        platform,
        sortField: 'revenue',
        paymentEvents: [...PAYMENT_TYPES],
        unique: ['FUNDS_WITHDRAWAL', 'SUBSCRIPTION_REFUNDED', 'DEFAULT'],
        costPer: ['FUNDS_WITHDRAWAL', 'DEFAULT'],
      };
      const { url, data } = await report(q);
      expect(data, url).toEqual(expectedReport(o, q));
    }
  });

  it('when windows around the withdrawal days, whole months and random windows are asked, then every number equals the oracle (names set aside)', async () => {
    for (const q of windowQueries()) {
      const { url, data } = await report(q);
      expect(withoutNames(data), url).toEqual(withoutNames(expectedReport(o, q)));
    }
  });

  it('when windows (one-day ones on withdrawal and refund days among them) are asked after a merge, then ad sets, creatives and keywords keep their names', async () => {
    for (const q of windowQueries()) {
      const { url, data } = await report(q);
      expect(namesOf(data), url).toEqual(namesOf(expectedReport(o, q)));
    }
  });
});

type Money = { k: string; revenue: string; n: string };

describe('data engineers and MCP after 0031 over data written before it', () => {
  const p = () => ({ p: o.w.p.project.id });
  /** The README rule over the raw tables: event amounts + completed payments of the revenue types. */
  const RAW = (key: string) => `
    SELECT ${key} AS k, toString(sum(m)) AS revenue, toString(sum(n)) AS n FROM (
      SELECT campaign_id, day, install_day, amount AS m, toInt64(1) AS n FROM events
        WHERE project_id = {p:String} AND has_amount = 1
      UNION ALL
      SELECT campaign_id, day, install_day, amount * sign AS m, toInt64(sign) AS n FROM payments
        WHERE project_id = {p:String} AND status = 'PAYMENT_COMPLETED' AND type NOT IN ${NOT_REVENUE})
    GROUP BY k HAVING revenue != '0' OR n != '0' ORDER BY k`;

  it('when v_campaign_daily, campaign_platform_monthly and the README example are read, then they equal the raw facts under the rule', async () => {
    const raw = await chJson<Money>(h().deps.ch, RAW("concat(toString(campaign_id), ' ', toString(day))"), p());
    const view = await chJson<Money>(
      h().deps.ch,
      `SELECT concat(toString(campaign_id), ' ', toString(day)) AS k, toString(sum(revenue)) AS revenue,
         toString(sum(revenue_events)) AS n
       FROM v_campaign_daily WHERE project_id = {p:String} GROUP BY k HAVING revenue != '0' OR n != '0' ORDER BY k`,
      p(),
    );
    expect(view).toEqual(raw);
    const rawMonths = await chJson<Money>(
      h().deps.ch,
      RAW("concat(toString(campaign_id), ' ', toString(toStartOfMonth(day)))"),
      p(),
    );
    const monthly = await chJson<Money>(
      h().deps.ch,
      `SELECT concat(toString(campaign_id), ' ', toString(month)) AS k, toString(sum(revenue)) AS revenue,
         toString(sum(revenue_events)) AS n
       FROM campaign_platform_monthly WHERE project_id = {p:String} GROUP BY k HAVING revenue != '0' OR n != '0' ORDER BY k`,
      p(),
    );
    expect(monthly).toEqual(rawMonths);
    // README: "The report's numbers for a window", per campaign, over the whole scenario.
    const from = addDays(o.today, -45);
    const readme = await chJson<{ campaign_id: number; revenue: string }>(
      h().deps.ch,
      `SELECT campaign_id, toString(revenue) AS revenue FROM (
         SELECT campaign_id, sum(clicks) AS clicks, sum(installs) AS installs, sum(signups) AS signups,
           sum(revenue) AS revenue, sum(spend) AS spend, if(spend = 0, NULL, revenue / spend) AS roas
         FROM v_campaign_daily
         WHERE project_id = {p:String} AND day BETWEEN {f:Date} AND {t:Date} AND campaign_id != 0
         GROUP BY campaign_id) WHERE revenue != '0' ORDER BY campaign_id`,
      { ...p(), f: from, t: o.today },
    );
    const rawCampaigns = await chJson<Money>(h().deps.ch, RAW('toString(campaign_id)'), p());
    expect(readme.map((x) => [String(x.campaign_id), x.revenue])).toEqual(
      rawCampaigns.filter((x) => x.k !== '0' && x.revenue !== '0').map((x) => [x.k, x.revenue]),
    );
  });

  it('when revenue_cohort is read, then each install day and day N equals the raw facts under the rule', async () => {
    const raw = await chJson<Money>(
      h().deps.ch,
      `SELECT concat(toString(campaign_id), ' ', toString(install_day), ' ', toString(dateDiff('day', install_day, day))) AS k,
         toString(sum(m)) AS revenue, '0' AS n FROM (
         SELECT campaign_id, day, install_day, amount AS m FROM events WHERE project_id = {p:String} AND has_amount = 1
         UNION ALL
         SELECT campaign_id, day, install_day, amount * sign FROM payments
           WHERE project_id = {p:String} AND status = 'PAYMENT_COMPLETED' AND type NOT IN ${NOT_REVENUE})
       WHERE dateDiff('day', install_day, day) BETWEEN 0 AND 30
       GROUP BY k HAVING revenue != '0' ORDER BY k`,
      p(),
    );
    const cohort = await chJson<Money>(
      h().deps.ch,
      `SELECT concat(toString(campaign_id), ' ', toString(install_day), ' ', toString(day_n)) AS k,
         toString(sum(revenue)) AS revenue, '0' AS n
       FROM revenue_cohort WHERE project_id = {p:String} GROUP BY k HAVING revenue != '0' ORDER BY k`,
      p(),
    );
    expect(cohort).toEqual(raw);
  });

  it('when MCP get_project_stats is asked for the scenario window, then attributed, organic and total revenue equal the raw facts', async () => {
    const token = await mcpToken(h().deps, o.w.p);
    const live = new Set((await liveCampaigns(h().deps, o.w.p.project)).map((c) => c.id));
    const from = addDays(o.today, -45);
    const stats = await callTool(h().app, token, 'get_project_stats', { from, to: o.today });
    expect(stats.isError).toBe(false);
    const raw = await chJson<Money>(h().deps.ch, RAW('toString(campaign_id)'), p());
    const sum = (rows: Money[]) => ({
      revenue_events: rows.reduce((t, x) => t + Number(x.n), 0),
      revenue: rows.reduce((t, x) => t + Number(x.revenue), 0),
    });
    const attributed = sum(raw.filter((x) => live.has(Number(x.k))));
    const organic = sum(raw.filter((x) => x.k === '0'));
    const data = stats.data as Record<string, { revenue_events: number; revenue: string }>;
    const read = (t: { revenue_events: number; revenue: string }) => ({
      revenue_events: t.revenue_events,
      revenue: Number(t.revenue),
    });
    expect(read(data.attributed as never)).toEqual({ ...attributed, revenue: expect.closeTo(attributed.revenue, 6) });
    expect(read(data.organic as never)).toEqual({ ...organic, revenue: expect.closeTo(organic.revenue, 6) });
  });
});
