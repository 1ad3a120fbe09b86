// The campaign report computed from the raw fact tables, without the materialized views: the
// ceiling the reporting workload judges the endpoint against, and the second opinion its numbers
// are checked with. Totals of every campaign in the window (the report ranks all of them), then the
// custom events and payments of one page of campaigns. It covers the report's campaign-level
// counters and event maps, not its drill-down or cohorts (so it does less work than the endpoint).
import type { ClickHouseClient } from '@clickhouse/client';

export type RawQuery = {
  from: string;
  to: string;
  /** '' = every platform. */
  platform: string;
  sortField: 'clicks' | 'installs' | 'signups' | 'revenue' | 'spend';
  descending: boolean;
  page: number;
  limit: number;
  /** The page's campaign ids when known (the endpoint's page, for the number check); else ranked here. */
  ids?: number[];
};

export type RawTotals = {
  campaignId: number;
  clicks: number;
  installs: number;
  reinstalls: number;
  reengagements: number;
  suspicious: number;
  clickThrough: number;
  viewThrough: number;
  signups: number;
  uninstalls: number;
  customEvents: number;
  revenueEvents: number;
  revenue: string;
  spend: string;
};

export type RawPage = {
  totals: RawTotals[];
  events: { campaignId: number; name: string; count: number; amount: string }[];
  payments: { campaignId: number; type: string; count: number; total: string }[];
};

const WHERE = `project_id = {p:String} AND campaign_id != 0 AND day BETWEEN {from:Date} AND {to:Date}
  AND ({pf:String} = '' OR platform = {pf:String})`;

const COLS = [
  'clicks',
  'installs',
  'reinstalls',
  'reengagements',
  'suspicious',
  'click_through',
  'view_through',
  'signups',
  'uninstalls',
  'custom_events',
  'revenue_events',
] as const;

/** One UNION ALL branch: the named counters from `table`, zeros for the rest. */
function branch(
  table: string,
  where: string,
  set: Partial<Record<(typeof COLS)[number] | 'revenue' | 'spend', string>>,
) {
  const counters = COLS.map((c) => `toInt64(${set[c] ?? '0'}) AS ${c}`).join(', ');
  const money = (c: 'revenue' | 'spend') => `toDecimal128(${set[c] ?? '0'}, 9) AS ${c}`;
  return `SELECT campaign_id, ${counters}, ${money('revenue')}, ${money('spend')} FROM ${table} WHERE ${where} GROUP BY campaign_id`;
}

/** Payments that are revenue (ClickHouse migration 0031): completed, withdrawals and refunds left out. */
const REVENUE_PAYMENT = `status = 'PAYMENT_COMPLETED' AND type NOT IN
  ('FUNDS_WITHDRAWAL', 'SUBSCRIPTION_CANCELLED', 'SUBSCRIPTION_REFUNDED', 'SUBSCRIPTION_BILLING_ISSUE')`;

const decision = (kinds: string) => `kind IN (${kinds})`;

export const RAW_TOTALS_SQL = `SELECT campaign_id, ${COLS.map((c) => `toString(sum(${c})) AS ${c}`).join(', ')},
    toString(sum(revenue)) AS revenue, toString(sum(spend)) AS spend
  FROM (
    ${branch('clicks', WHERE, { clicks: 'count()' })}
    UNION ALL ${branch('attributions', WHERE, {
      installs: "countIf(kind = 'install')",
      reinstalls: "countIf(kind = 'reinstall')",
      reengagements: "countIf(kind = 'reengagement')",
      suspicious: `countIf(suspicious = 1 AND ${decision("'install', 'reinstall'")})`,
      click_through: `countIf(attribution_type = 'INORGANIC' AND touch_type = 'click' AND ${decision("'install', 'reinstall'")})`,
      view_through: `countIf(attribution_type = 'INORGANIC' AND touch_type = 'view' AND ${decision("'install', 'reinstall'")})`,
    })}
    UNION ALL ${branch('signups', WHERE, { signups: 'count()' })}
    UNION ALL ${branch('uninstalls', WHERE, { uninstalls: 'count()' })}
    UNION ALL ${branch('events', WHERE, {
      custom_events: 'count()',
      revenue_events: 'countIf(has_amount = 1)',
      revenue: 'sumIf(amount, has_amount = 1)',
    })}
    UNION ALL ${branch('payments', `${WHERE} AND ${REVENUE_PAYMENT}`, {
      revenue_events: 'sum(sign)',
      revenue: 'sum(amount * sign)',
    })}
    UNION ALL ${branch(
      'spend',
      'project_id = {p:String} AND campaign_id != 0 AND day BETWEEN {from:Date} AND {to:Date}',
      {
        spend: 'sum(amount * sign)',
      },
    )})
  GROUP BY campaign_id`;

const PAGE_WHERE = `project_id = {p:String} AND campaign_id IN {ids:Array(UInt32)} AND day BETWEEN {from:Date} AND {to:Date}
  AND ({pf:String} = '' OR platform = {pf:String})`;

const RAW_EVENTS_SQL = `SELECT campaign_id, event_name AS name, toString(count()) AS count,
    toString(sumIf(amount, has_amount = 1)) AS amount, toString(uniq(user_id)) AS users
  FROM events WHERE ${PAGE_WHERE} GROUP BY campaign_id, event_name`;

const RAW_PAYMENTS_SQL = `SELECT campaign_id, toString(type) AS type, toString(sum(sign)) AS count,
    toString(sum(amount * sign)) AS total, toString(uniq(user_id)) AS users
  FROM payments WHERE ${PAGE_WHERE} AND status = 'PAYMENT_COMPLETED' GROUP BY campaign_id, type`;

async function rows<T>(ch: ClickHouseClient, query: string, params: Record<string, unknown>): Promise<T[]> {
  return (await ch.query({ query, format: 'JSONEachRow', query_params: params })).json<T>();
}

function toTotals(r: Record<string, string>): RawTotals {
  const n = (k: string) => Number(r[k] ?? 0);
  return {
    campaignId: n('campaign_id'),
    clicks: n('clicks'),
    installs: n('installs'),
    reinstalls: n('reinstalls'),
    reengagements: n('reengagements'),
    suspicious: n('suspicious'),
    clickThrough: n('click_through'),
    viewThrough: n('view_through'),
    signups: n('signups'),
    uninstalls: n('uninstalls'),
    customEvents: n('custom_events'),
    revenueEvents: n('revenue_events'),
    revenue: r.revenue ?? '0',
    spend: r.spend ?? '0',
  };
}

const sortKey = (t: RawTotals, f: RawQuery['sortField']): number =>
  f === 'revenue' ? Number(t.revenue) : f === 'spend' ? Number(t.spend) : t[f];

/** The report of one query from raw facts: every campaign's totals, then the page's events and payments. */
export async function rawReport(ch: ClickHouseClient, projectId: string, q: RawQuery): Promise<RawPage> {
  const params = { p: projectId, from: q.from, to: q.to, pf: q.platform };
  const all = (await rows<Record<string, string>>(ch, RAW_TOTALS_SQL, params)).map(toTotals);
  const sign = q.descending ? -1 : 1;
  const ranked = [...all].sort((a, b) => sign * (sortKey(a, q.sortField) - sortKey(b, q.sortField)));
  const ids = q.ids ?? ranked.slice((q.page - 1) * q.limit, q.page * q.limit).map((t) => t.campaignId);
  const onPage = new Set(ids);
  const pageParams = { ...params, ids };
  const events = await rows<Record<string, string>>(ch, RAW_EVENTS_SQL, pageParams);
  const payments = await rows<Record<string, string>>(ch, RAW_PAYMENTS_SQL, pageParams);
  return {
    totals: all.filter((t) => onPage.has(t.campaignId)),
    events: events.map((r) => ({
      campaignId: Number(r.campaign_id),
      name: String(r.name),
      count: Number(r.count),
      amount: String(r.amount),
    })),
    payments: payments.map((r) => ({
      campaignId: Number(r.campaign_id),
      type: String(r.type),
      count: Number(r.count),
      total: String(r.total),
    })),
  };
}
