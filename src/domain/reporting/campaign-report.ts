// GET /api/v1/reporting/campaigns: the project's campaigns with their metrics for a window.
//  1. Postgres: live campaigns matching active / network / meta_account_id / search (dates and
//     platform never drop a campaign: one created after `to` is listed with zeros).
//  2. One ClickHouse query: the window totals every campaign is sorted by (only the counters the
//     sort field needs; none for created_at) from campaign_platform_monthly for the window's whole
//     months and campaign_platform_daily for its other days, asked together with step 1 and the
//     project's event names.
//  3. Sort in TypeScript over computed values (sort.ts), then page.
//  4. For the page's campaigns only, all asked at once: the drill-down with the campaigns' full
//     totals (page-details.ts), active users, activity, network accounts.
// Platform filter: every metric counts only facts of that platform. Spend rows usually carry no
// platform; they count under a platform filter only for a campaign whose store listings are all
// on that platform (README "Reporting").
import type { Deps } from '../../deps.ts';
import { foreground } from '../../store/clickhouse/priority.ts';
import type { Cutoffs } from '../../store/clickhouse/report-levels.ts';
import {
  type ActivityRow,
  type CounterColumn,
  type CounterRow,
  type ReportScope,
  selectActivity,
  selectCampaignTotals,
  selectKnownEventNames,
} from '../../store/clickhouse/reporting.ts';
import type { Project } from '../../store/postgres/projects.ts';
import {
  findReportNetworkAccounts,
  listReportCampaigns,
  type ReportCampaignRecord,
  type ReportNetworkAccount,
} from '../../store/postgres/report-campaigns.ts';
import { listingsOfCampaigns, type StoreListing } from '../../store/postgres/store-listings.ts';
import { displayIdFromLink } from '../campaigns/parse-link.ts';
import { COHORT_DAYS, cohortCutoff, zeroCohortCounts, zeroDaywise } from './cohorts.ts';
import { addDecimal } from './decimal.ts';
import { isIosOnly, type SortValues, sortValues, type Totals, zeroTotals } from './metrics.ts';
import { loadPageDetails, type PageDetails } from './page-details.ts';
import type { ReportInput, SortField } from './report-input.ts';
import type { CampaignReport, CampaignReportRow } from './report-types.ts';
import { containsPattern, looksLikeLink } from './search.ts';
import { compareForReport } from './sort.ts';
import { activeUsersWindow, addDays, projectToday, reportWindow, wholeMonths } from './window.ts';

type ReportDeps = Pick<Deps, 'sql' | 'ch' | 'config' | 'now'>;

async function findCampaigns(deps: ReportDeps, project: Project, input: ReportInput) {
  if (input.search?.includes('\0')) {
    return []; // no campaign text can hold NUL (Postgres text), so nothing matches
  }
  const searchDisplayId =
    input.search && looksLikeLink(input.search)
      ? ((await displayIdFromLink(deps, project.id, input.search)) ?? null)
      : null;
  return listReportCampaigns(deps.sql, project.id, {
    active: input.active,
    network: input.network,
    networkAccountId: input.metaAccountId,
    searchPattern: input.search === null ? null : containsPattern(input.search),
    searchDisplayId,
    publicUrl: deps.config.publicUrl,
  });
}

async function findCampaignsWithListings(deps: ReportDeps, project: Project, input: ReportInput) {
  const campaigns = await findCampaigns(deps, project, input);
  const listings = await listingsOfCampaigns(
    deps.sql,
    campaigns.map((c) => c.id),
  );
  return { campaigns, listings };
}

/** Spend without a platform counts under a platform filter only when every listing is on it. */
function unplatformedSpendCounts(platform: string, listings: StoreListing[]): boolean {
  return platform === '' || (listings.length > 0 && listings.every((l) => l.platform === platform));
}

function totalsOf(r: CounterRow, spendCounts: boolean): Totals {
  return {
    clicks: r.clicks,
    installs: r.installs,
    reinstalls: r.reinstalls,
    reengagements: r.reengagements,
    signups: r.signups,
    uninstalls: r.uninstalls,
    suspiciousInstalls: r.suspiciousInstalls,
    clickThrough: r.clickThrough,
    viewThrough: r.viewThrough,
    revenueEvents: r.revenueEvents,
    revenue: r.revenue,
    spend: spendCounts ? addDecimal(r.spendPlatformed, r.spendUnplatformed) : r.spendPlatformed,
  };
}

/**
 * The displayed names: the asked ones the project has recorded (in asked order; `known` holds every
 * one of them), else the recorded ones `known` lists (the first KNOWN_NAMES_LIMIT by name).
 */
function displayed(asked: string[] | null, known: string[]): string[] {
  if (asked === null) {
    return [...known].sort();
  }
  const k = new Set(known);
  return asked.filter((n) => k.has(n));
}

/**
 * The counters each sort field is computed from (metrics.ts sortValues). Reading all fifteen for
 * every campaign took 50 ms of a 365-day report over 1,000 campaigns, one of them 21 ms (bench
 * dataset, statement alone); the page's campaigns get their full totals with the drill-down.
 */
const SORT_COUNTERS: Record<SortField, CounterColumn[]> = {
  clicks: ['clicks'],
  installs: ['installs'],
  signups: ['signups'],
  revenue: ['revenue'],
  spend: ['spend_platformed', 'spend_unplatformed'],
  created_at: [],
  uninstalls: ['uninstalls'],
  conversion: ['signups', 'installs', 'reinstalls', 'reengagements'],
  suspicious_installs: ['suspicious_installs'],
  roas: ['revenue', 'spend_platformed', 'spend_unplatformed'],
};

type Ranked = {
  c: ReportCampaignRecord;
  ls: StoreListing[];
  ios: boolean;
  android: boolean;
  iosOnly: boolean;
  values: SortValues;
  spendCounts: boolean;
};

/** Steps 1-3: the matching campaigns with their window totals, in report order. */
async function rankCampaigns(deps: ReportDeps, project: Project, input: ReportInput, scope: ReportScope) {
  // Postgres (campaigns, then their listings) and ClickHouse (every campaign's totals) at once.
  const [{ campaigns, listings }, totals] = await Promise.all([
    findCampaignsWithListings(deps, project, input),
    selectCampaignTotals(deps.ch, scope, wholeMonths(scope), SORT_COUNTERS[input.sortField]),
  ]);
  const counters = new Map(totals.map((r) => [r.campaignId, r]));
  const ranked: Ranked[] = campaigns.map((c) => {
    const ls = listings.get(c.id) ?? [];
    const ios = ls.some((l) => l.platform === 'IOS');
    const android = ls.some((l) => l.platform === 'ANDROID');
    const iosOnly = isIosOnly({ ios, android });
    const spendCounts = unplatformedSpendCounts(scope.platform, ls);
    const counter = counters.get(c.id);
    // Totals of the sort's counters only (the others are 0): enough for its value.
    const sortTotals = counter ? totalsOf(counter, spendCounts) : zeroTotals();
    const values = sortValues(sortTotals, input.view, c.createdAt, iosOnly);
    return { c, ls, ios, android, iosOnly, values, spendCounts };
  });
  const compare = compareForReport(input.sortField, input.sortOrder);
  return ranked.sort((a, b) =>
    compare(
      { id: a.c.id, createdAt: a.c.createdAt, values: a.values },
      { id: b.c.id, createdAt: b.c.createdAt, values: b.values },
    ),
  );
}

/** active_users over the X days ending at `to` (or today, when earlier); activity over the last X days. */
async function pageActivity(deps: ReportDeps, scope: ReportScope, input: ReportInput, today: string, ids: number[]) {
  const days = input.activeUsersDays;
  const active = activeUsersWindow(input.to, today, days);
  const rows = await selectActivity(
    deps.ch,
    {
      projectId: scope.projectId,
      platform: scope.platform,
      activeFrom: active.from,
      activeTo: active.to,
      activityFrom: addDays(today, 1 - days),
      activityTo: today,
    },
    ids,
  );
  return new Map(rows.map((r) => [r.campaignId, r]));
}

function reportRow(
  r: Ranked,
  details: PageDetails,
  activity: Map<number, ActivityRow>,
  accounts: Map<number, ReportNetworkAccount>,
): CampaignReportRow {
  const d = details.campaign.get(r.c.id);
  return {
    campaign: r.c,
    listings: r.ls,
    networkAccount: r.c.networkAccountId === null ? null : (accounts.get(r.c.networkAccountId) ?? null),
    ios: r.ios,
    android: r.android,
    iosOnly: r.iosOnly,
    totals: d?.totals ?? zeroTotals(),
    events: d?.events ?? new Map(),
    payments: d?.payments ?? new Map(),
    cohorts: d?.cohorts ?? zeroCohortCounts(),
    daywise: d?.daywise ?? zeroDaywise(),
    activeUsers: activity.get(r.c.id)?.activeUsers ?? 0,
    activity: activity.get(r.c.id)?.activity ?? 0,
    adSets: details.adSets.get(r.c.id) ?? [],
    keywords: details.keywords.get(r.c.id) ?? [],
  };
}

/** The report a user waits for: its ClickHouse statements go ahead of background work (embedded mode). */
export function buildCampaignReport(deps: ReportDeps, project: Project, input: ReportInput): Promise<CampaignReport> {
  return foreground(() => composeReport(deps, project, input));
}

async function composeReport(deps: ReportDeps, project: Project, input: ReportInput): Promise<CampaignReport> {
  const today = projectToday(deps.now(), project.timezone);
  const scope: ReportScope = {
    projectId: project.id,
    ...reportWindow(input.from, input.to),
    platform: input.platform ?? '',
  };
  const [ranked, known] = await Promise.all([
    rankCampaigns(deps, project, input, scope),
    selectKnownEventNames(deps.ch, project.id, { events: input.events, payments: input.paymentEvents }),
  ]);
  const page = ranked.slice((input.page - 1) * input.limit, input.page * input.limit);
  const ids = page.map((r) => r.c.id);
  const spendCounts = new Map(page.map((r) => [r.c.id, r.spendCounts]));

  const eventNames = displayed(input.events, known.events);
  const paymentTypes = displayed(input.paymentEvents, known.payments);
  const cutoffs = Object.fromEntries(COHORT_DAYS.map((n) => [n, cohortCutoff(scope, today, n)])) as Cutoffs;
  const accountIds = page.flatMap((r) => (r.c.networkAccountId === null ? [] : [r.c.networkAccountId]));
  const [details, activity, accounts] = await Promise.all([
    loadPageDetails(deps, {
      scope: { ...scope, ids },
      cutoffs,
      eventNames,
      paymentTypes,
      uniqueNames: input.uniqueUserEvents,
      totalsOf: (r) => totalsOf(r, spendCounts.get(r.campaignId) ?? false),
      visible: (r) => r.platformRows > 0 || (r.blankRows > 0 && (spendCounts.get(r.campaignId) ?? false)),
    }),
    pageActivity(deps, scope, input, today, ids),
    findReportNetworkAccounts(deps.sql, project.id, accountIds),
  ]);
  const rows = page.map((r) => reportRow(r, details, activity, accounts));
  return {
    rows,
    total: ranked.length,
    page: input.page,
    limit: input.limit,
    pages: Math.ceil(ranked.length / input.limit),
    view: input.view,
    displayCurrency: project.displayCurrency,
    hasDateFilter: input.from !== null || input.to !== null,
    eventNames,
    paymentTypes,
    uniqueNames: new Set(input.uniqueUserEvents),
    costPerNames: input.costPerEvent === null ? null : new Set(input.costPerEvent),
  };
}
