// Cohort metrics of a report window (README "Reporting"). The cohort of a window is the installs
// (new installs and reinstalls) attributed to the campaign whose project-local install day is in
// [from, to]. Day N of an install is its install day + N (day 0 = the install day); an install is
// active on a day when it called init (an install or an app open) that day. The cohort's size is
// counted from the attribution decisions (campaign_daily installs + reinstalls), its activity and
// revenue from the facts, kept for 30 days after install (retention_cohort / revenue_cohort).
//   retention dN          (rolling) share of the cohort active on day N or on any later day up to 30
//   classic_retention dN  share of the cohort active exactly on day N
//   daywise_revenue dN    revenue of the cohort's users on days 0..N after their install
// Only installs whose day N has been reached (install day + N <= today, project-local) count for
// dN, on both sides of the ratio; with no such install dN is undefined ("-").
import { type Ratio, ratio } from './ratio.ts';
import type { ReportWindow } from './window.ts';
import { addDays, minDay } from './window.ts';

export const RETENTION_DAYS = [1, 7] as const;
export const CLASSIC_RETENTION_DAYS = [1, 7, 14, 30] as const;
export const DAYWISE_REVENUE_DAYS = [0, 3, 7, 30] as const;
/** Every N whose eligible cohort size is needed. */
export const COHORT_DAYS = [0, 1, 3, 7, 14, 30] as const;
export type CohortDay = (typeof COHORT_DAYS)[number];

export type CohortCounts = {
  /** Eligible cohort size for each N. */
  cohort: Record<CohortDay, number>;
  rolling: Record<(typeof RETENTION_DAYS)[number], number>;
  classic: Record<(typeof CLASSIC_RETENTION_DAYS)[number], number>;
};

export type DaywiseRevenue = Record<(typeof DAYWISE_REVENUE_DAYS)[number], string>;

export const zeroCohortCounts = (): CohortCounts => ({
  cohort: { 0: 0, 1: 0, 3: 0, 7: 0, 14: 0, 30: 0 },
  rolling: { 1: 0, 7: 0 },
  classic: { 1: 0, 7: 0, 14: 0, 30: 0 },
});

export const zeroDaywise = (): DaywiseRevenue => ({ 0: '0', 3: '0', 7: '0', 30: '0' });

/** The last install day counted for dN: the window's end, or today - N if that is earlier. */
export function cohortCutoff(window: ReportWindow, today: string, n: number): string {
  return minDay(window.to, addDays(today, -n));
}

export type RetentionRatios = {
  retention: { d1: Ratio | undefined; d7: Ratio | undefined };
  classic: { d1: Ratio | undefined; d7: Ratio | undefined; d14: Ratio | undefined; d30: Ratio | undefined };
};

/**
 * Exact (counts as bigints), rounded once when shown; undefined for an empty cohort. Returners are
 * capped at the cohort: they are distinct counts of app opens (uniq), the cohort a count of
 * decisions, and the writer moves the two tables apart, so an app open may land before its
 * install's decision does.
 */
const share = (active: number, cohort: number): Ratio | undefined =>
  ratio(BigInt(Math.min(active, cohort)), BigInt(cohort));

export function retentionRatios(c: CohortCounts): RetentionRatios {
  return {
    retention: { d1: share(c.rolling[1], c.cohort[1]), d7: share(c.rolling[7], c.cohort[7]) },
    classic: {
      d1: share(c.classic[1], c.cohort[1]),
      d7: share(c.classic[7], c.cohort[7]),
      d14: share(c.classic[14], c.cohort[14]),
      d30: share(c.classic[30], c.cohort[30]),
    },
  };
}

/** Daywise revenue per N, undefined where no install of the window has reached day N. */
export function daywiseRevenue(
  revenue: DaywiseRevenue,
  c: CohortCounts,
): Record<'d0' | 'd3' | 'd7' | 'd30', string | undefined> {
  const at = (n: (typeof DAYWISE_REVENUE_DAYS)[number]) => (c.cohort[n] === 0 ? undefined : revenue[n]);
  return { d0: at(0), d3: at(3), d7: at(7), d30: at(30) };
}
