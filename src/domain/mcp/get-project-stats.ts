// get_project_stats (MCP): the project's totals for a window. Attributed totals are the sums of the
// reporting endpoint's rows for the same window (the same store reads: campaign_platform_monthly for
// whole months, campaign_platform_daily for the other days, live campaigns only; spend counts its
// rows with and without a platform, as an unfiltered report does). Organic totals (campaign 0, never
// a report row) come from campaign_daily, the report's drill-down table.
import type { Deps } from '../../deps.ts';
import { foreground } from '../../store/clickhouse/priority.ts';
import {
  type CounterColumn,
  type CounterRow,
  selectCampaignBreakdown,
  selectCampaignTotals,
} from '../../store/clickhouse/reporting.ts';
import type { Project } from '../../store/postgres/projects.ts';
import { addDecimal } from '../reporting/decimal.ts';
import type { Totals } from '../reporting/metrics.ts';
import { wholeMonths } from '../reporting/window.ts';
import { liveCampaigns, type StatsWindow, statsScope } from './stats-window.ts';

/** The report's totals without the click-through split; money is decimal text in the display currency. */
export type StatsTotals = Omit<Totals, 'clickThrough' | 'viewThrough'>;

export type ProjectStats = {
  window: StatsWindow;
  campaigns: number;
  attributed: StatsTotals;
  organic: StatsTotals;
  total: StatsTotals;
};

const COLUMNS: CounterColumn[] = [
  'clicks',
  'installs',
  'reinstalls',
  'reengagements',
  'signups',
  'uninstalls',
  'suspicious_installs',
  'revenue_events',
  'revenue',
  'spend_platformed',
  'spend_unplatformed',
];

const ZERO: StatsTotals = {
  clicks: 0,
  installs: 0,
  reinstalls: 0,
  reengagements: 0,
  signups: 0,
  uninstalls: 0,
  suspiciousInstalls: 0,
  revenueEvents: 0,
  revenue: '0',
  spend: '0',
};

function add(t: StatsTotals, r: StatsTotals): StatsTotals {
  return {
    clicks: t.clicks + r.clicks,
    installs: t.installs + r.installs,
    reinstalls: t.reinstalls + r.reinstalls,
    reengagements: t.reengagements + r.reengagements,
    signups: t.signups + r.signups,
    uninstalls: t.uninstalls + r.uninstalls,
    suspiciousInstalls: t.suspiciousInstalls + r.suspiciousInstalls,
    revenueEvents: t.revenueEvents + r.revenueEvents,
    revenue: addDecimal(t.revenue, r.revenue),
    spend: addDecimal(t.spend, r.spend),
  };
}

const totalsOf = (r: CounterRow): StatsTotals => ({
  clicks: r.clicks,
  installs: r.installs,
  reinstalls: r.reinstalls,
  reengagements: r.reengagements,
  signups: r.signups,
  uninstalls: r.uninstalls,
  suspiciousInstalls: r.suspiciousInstalls,
  revenueEvents: r.revenueEvents,
  revenue: r.revenue,
  spend: addDecimal(r.spendPlatformed, r.spendUnplatformed),
});

const sum = (rows: CounterRow[]): StatsTotals => rows.map(totalsOf).reduce(add, ZERO);

export function getProjectStats(
  deps: Pick<Deps, 'sql' | 'ch' | 'config'>,
  project: Project,
  window: StatsWindow,
): Promise<ProjectStats> {
  const scope = statsScope(project, window);
  return foreground(async () => {
    const [campaigns, totals, organicRows] = await Promise.all([
      liveCampaigns(deps, project),
      selectCampaignTotals(deps.ch, scope, wholeMonths(scope), COLUMNS),
      selectCampaignBreakdown(deps.ch, scope, [0]),
    ]);
    const live = new Set(campaigns.map((c) => c.id));
    const attributed = sum(totals.filter((r) => live.has(r.campaignId)));
    const organic = sum(organicRows);
    return { window, campaigns: live.size, attributed, organic, total: add(attributed, organic) };
  });
}
