// Report rows → the spec's "Reporting campaign row", AdSet, AdCreative and Keyword (snake_case,
// `sign-ups`, numbers as formatted strings via domain/reporting/format.ts). Fields that depend on the
// view: user_acquisition has cost_per_install; retargeting has reinstalls, reengagements and
// cost_per_reinstall instead. iOS-only campaigns show "-" for the metrics of metrics.ts IOS_HIDDEN.
// Event maps are null-prototype objects: an event named `__proto__` or `constructor` is a plain key.
import { campaignLink } from '../../domain/campaigns/campaign.ts';
import { daywiseRevenue, retentionRatios } from '../../domain/reporting/cohorts.ts';
import {
  DASH,
  formatCount,
  formatMoney,
  formatMultiplier,
  formatPercent,
  formatRatio,
} from '../../domain/reporting/format.ts';
import { conversion, costPer, type IosHidden, roas } from '../../domain/reporting/metrics.ts';
import type { Ratio } from '../../domain/reporting/ratio.ts';
import type {
  AdSetReport,
  CampaignReport,
  CampaignReportRow,
  LevelStats,
  NamedLevel,
} from '../../domain/reporting/report-types.ts';

type Ctx = { report: CampaignReport; iosOnly: boolean; deeplink: number };

const dict = (): Record<string, unknown> => Object.create(null) as Record<string, unknown>;

/** The value, or "-" when the campaign is iOS-only and the metric is hidden there. */
const shown = <T>(ctx: Ctx, _metric: IosHidden, value: () => T): T | string => (ctx.iosOnly ? DASH : value());

function money(ctx: Ctx, v: string | Ratio | undefined): string {
  return v === undefined ? DASH : formatMoney(v, ctx.report.displayCurrency);
}

function customEvents(ctx: Ctx, s: LevelStats): Record<string, unknown> {
  const out = dict();
  for (const name of ctx.report.eventNames) {
    const e = s.events.get(name) ?? { count: 0, amount: '0', amountEvents: 0, users: 0 };
    if (ctx.iosOnly) {
      out[name] = DASH;
      continue;
    }
    const unique = ctx.report.uniqueNames.has(name);
    // An amount of 0 is an amount too (ClickHouse migration 0028 counts them); a sum other than 0
    // also tells it for events that count missed (written during the migration, a deleted user's).
    const hasAmount = e.amountEvents > 0 || e.amount !== '0';
    if (!unique && !hasAmount) {
      out[name] = formatCount(e.count);
      continue;
    }
    const v: Record<string, string> = { count: formatCount(e.count) };
    if (hasAmount) {
      v.amount = money(ctx, e.amount);
    }
    if (unique) {
      v.unique_count = formatCount(e.users);
    }
    out[name] = v;
  }
  return out;
}

function paymentEvents(ctx: Ctx, s: LevelStats): Record<string, unknown> {
  const out = dict();
  for (const type of ctx.report.paymentTypes) {
    const p = s.payments.get(type) ?? { count: 0, total: '0', users: 0 };
    const v: Record<string, string> = { count: formatCount(p.count), total: money(ctx, p.total) };
    if (ctx.report.uniqueNames.has(type)) {
      v.unique_count = formatCount(p.users);
    }
    out[type] = v;
  }
  return out;
}

function costPerEvents(ctx: Ctx, s: LevelStats): Record<string, unknown> {
  const names = ctx.report.costPerNames;
  if (names === null) {
    return {};
  }
  const custom = dict();
  for (const name of ctx.report.eventNames.filter((n) => names.has(n))) {
    custom[name] = ctx.iosOnly ? DASH : money(ctx, costPer(s.totals.spend, s.events.get(name)?.count ?? 0));
  }
  const payment = dict();
  for (const type of ctx.report.paymentTypes.filter((n) => names.has(n))) {
    payment[type] = money(ctx, costPer(s.totals.spend, s.payments.get(type)?.count ?? 0));
  }
  return { cost_per_custom_events: custom, cost_per_payment_events: payment };
}

const pct = (r: Ratio | undefined) => formatRatio(r, formatPercent);

function retention(ctx: Ctx, s: LevelStats) {
  const r = retentionRatios(s.cohorts).retention;
  return { d1: shown(ctx, 'retention', () => pct(r.d1)), d7: shown(ctx, 'retention', () => pct(r.d7)) };
}

function daywise(ctx: Ctx, s: LevelStats) {
  const d = daywiseRevenue(s.daywise, s.cohorts);
  const v = (x: string | undefined) => shown(ctx, 'daywise_revenue', () => money(ctx, x));
  return { d0: v(d.d0), d3: v(d.d3), d7: v(d.d7), d30: v(d.d30) };
}

/** The metrics every level has (spec: AdSet / AdCreative / Keyword required and optional strings). */
function levelMetrics(ctx: Ctx, s: LevelStats) {
  const t = s.totals;
  return {
    clicks: formatCount(t.clicks),
    installs: formatCount(t.installs),
    'sign-ups': shown(ctx, 'sign-ups', () => formatCount(t.signups)),
    spend: money(ctx, t.spend),
    revenue: shown(ctx, 'revenue', () => money(ctx, t.revenue)),
    conversion: shown(ctx, 'conversion', () => pct(conversion(t, ctx.report.view))),
    revenue_event_count: formatCount(t.revenueEvents),
    roas: shown(ctx, 'roas', () => formatRatio(roas(t), formatMultiplier)),
    cost_per_install: shown(ctx, 'cost_per_install', () => money(ctx, costPer(t.spend, t.installs))),
    cost_per_signup: shown(ctx, 'cost_per_signup', () => money(ctx, costPer(t.spend, t.signups))),
    custom_events: customEvents(ctx, s),
    payment_events: paymentEvents(ctx, s),
    ...costPerEvents(ctx, s),
  };
}

const suspicious = (ctx: Ctx, s: LevelStats) =>
  shown(ctx, 'suspicious_installs', () => formatCount(s.totals.suspiciousInstalls));

function presentKeyword(ctx: Ctx, k: NamedLevel) {
  return {
    id: k.id,
    name: k.name,
    ...levelMetrics(ctx, k),
    suspicious_installs: suspicious(ctx, k),
    retention: retention(ctx, k),
  };
}

function presentCreative(ctx: Ctx, c: NamedLevel) {
  // We know no creative type; deeplink is 1 when the campaign has a deeplink (creatives share it).
  return {
    id: c.id,
    name: c.name,
    type: '',
    deeplink: ctx.deeplink,
    ...levelMetrics(ctx, c),
    retention: retention(ctx, c),
  };
}

function presentAdSet(ctx: Ctx, row: CampaignReportRow, a: AdSetReport) {
  return {
    id: a.id,
    name: a.name,
    ...levelMetrics(ctx, a),
    suspicious_installs: suspicious(ctx, a),
    daywise_revenue: daywise(ctx, a),
    ios: row.ios,
    android: row.android,
    retention: retention(ctx, a),
    adCreatives: a.creatives.map((c) => presentCreative(ctx, c)),
    keywords: a.keywords.map((k) => presentKeyword(ctx, k)),
  };
}

function viewFields(ctx: Ctx, row: CampaignReportRow) {
  const t = row.totals;
  if (ctx.report.view === 'user_acquisition') {
    return {};
  }
  return {
    reinstalls: formatCount(t.reinstalls),
    reengagements: formatCount(t.reengagements),
    cost_per_reinstall: money(ctx, costPer(t.spend, t.reinstalls)),
  };
}

function networkAccount(row: CampaignReportRow) {
  const a = row.networkAccount;
  if (!a) {
    return null;
  }
  return {
    id: a.id,
    name: a.name,
    email: a.email,
    status: a.status,
    capi_configured: a.capiConfigured,
    ...(a.accountName === null ? {} : { account_name: a.accountName }),
    ...(a.externalCustomerId === null ? {} : { external_customer_id: a.externalCustomerId }),
  };
}

export function presentReportRow(report: CampaignReport, row: CampaignReportRow, publicUrl: string) {
  const c = row.campaign;
  const ctx: Ctx = { report, iosOnly: row.iosOnly, deeplink: c.deeplink ? 1 : 0 };
  const t = row.totals;
  const { cost_per_install, ...metrics } = levelMetrics(ctx, row);
  const classic = retentionRatios(row.cohorts).classic;
  const cl = (r: Ratio | undefined) => shown(ctx, 'classic_retention', () => pct(r));
  return {
    id: c.id,
    active: c.active,
    created_at: c.createdAt.toISOString(),
    display_id: c.displayId,
    link: campaignLink(c, publicUrl),
    name: c.name,
    ...metrics,
    ...(report.view === 'user_acquisition' ? { cost_per_install } : {}),
    ...viewFields(ctx, row),
    uninstalls: shown(ctx, 'uninstalls', () => formatCount(t.uninstalls)),
    suspicious_installs: suspicious(ctx, row),
    click_through_attribution: formatCount(t.clickThrough),
    view_through_attribution: formatCount(t.viewThrough),
    meta: c.meta,
    meta_web_to_app: c.metaWebToApp,
    google: c.google,
    google_web_to_app: c.googleWebToApp,
    tiktok: c.network === 'TIKTOK',
    snapchat: c.network === 'SNAPCHAT',
    linkedin: c.network === 'LINKEDIN',
    ...(c.network ? { ad_network_code: c.network } : {}),
    ios: row.ios,
    android: row.android,
    activity_in_last_x_days: row.activity,
    has_date_filter: report.hasDateFilter,
    domain: c.domainId === null || c.domainName === null ? null : { id: c.domainId, name: c.domainName },
    custom_store_listing: row.listings.length === 0 ? null : row.listings.map((l) => l.name).join(', '),
    active_users: shown(ctx, 'active_users', () => row.activeUsers),
    retention: retention(ctx, row),
    classic_retention: { d1: cl(classic.d1), d7: cl(classic.d7), d14: cl(classic.d14), d30: cl(classic.d30) },
    daywise_revenue: daywise(ctx, row),
    network_account: networkAccount(row),
    adSets: row.adSets.map((a) => presentAdSet(ctx, row, a)),
    keywords: row.keywords.map((k) => presentKeyword(ctx, k)),
  };
}

export function presentReport(report: CampaignReport, publicUrl: string) {
  return {
    campaigns: report.rows.map((r) => presentReportRow(report, r, publicUrl)),
    pagination: { total: report.total, pages: report.pages, page: report.page, limit: report.limit },
    display_currency: report.displayCurrency,
    view: report.view,
  };
}
