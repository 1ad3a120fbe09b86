// Report metrics: the additive counters read from campaign_daily, and the ratios computed from
// them (never stored, STYLE.md). Ratio definitions (README "Reporting"):
//   conversion          sign-ups / installs                        (view user_acquisition)
//                       sign-ups / (reinstalls + reengagements)    (view retargeting)
//   roas                revenue / spend
//   cost_per_install    spend / installs
//   cost_per_reinstall  spend / reinstalls
//   cost_per_signup     spend / sign-ups
//   cost_per_<event>    spend / that event's count (payments: net count)
// A zero denominator makes the ratio undefined, shown as "-" (never Infinity, NaN or a made-up 0).
// Every ratio is exact (ratio.ts: integers over integers, money in nano-units), rounded once when shown.
import { NANO_PER_UNIT, toNano } from './decimal.ts';
import { type Ratio, ratio } from './ratio.ts';
import type { ReportView, SortField } from './report-input.ts';

export type Totals = {
  clicks: number;
  installs: number;
  reinstalls: number;
  reengagements: number;
  signups: number;
  /** Uninstalls detected by uninstall tracking (campaign_daily.uninstalls, fed by uninstalls_daily_mv). */
  uninstalls: number;
  suspiciousInstalls: number;
  clickThrough: number;
  viewThrough: number;
  revenueEvents: number;
  /** Decimal strings (exact). */
  revenue: string;
  spend: string;
};

export const zeroTotals = (): Totals => ({
  clicks: 0,
  installs: 0,
  reinstalls: 0,
  reengagements: 0,
  signups: 0,
  uninstalls: 0,
  suspiciousInstalls: 0,
  clickThrough: 0,
  viewThrough: 0,
  revenueEvents: 0,
  revenue: '0',
  spend: '0',
});

/** Adds b's counters into `into` (in place); revenue and spend are left to the caller (exact sums). */
export function addCounters(into: Totals, b: Totals): void {
  into.clicks += b.clicks;
  into.installs += b.installs;
  into.reinstalls += b.reinstalls;
  into.reengagements += b.reengagements;
  into.signups += b.signups;
  into.uninstalls += b.uninstalls;
  into.suspiciousInstalls += b.suspiciousInstalls;
  into.clickThrough += b.clickThrough;
  into.viewThrough += b.viewThrough;
  into.revenueEvents += b.revenueEvents;
}

/** Counts are whole numbers: their ratio is exact as bigints. */
const countRatio = (num: number, den: number): Ratio | undefined => ratio(BigInt(num), BigInt(den));

export function conversion(t: Totals, view: ReportView): Ratio | undefined {
  return countRatio(t.signups, view === 'user_acquisition' ? t.installs : t.reinstalls + t.reengagements);
}

/** revenue / spend in nano-units (as floats, 1.005 / 0.2 was 5.0249999999999995: 5.02x, not 5.03x). */
export const roas = (t: Totals): Ratio | undefined => ratio(toNano(t.revenue), toNano(t.spend));

/**
 * spend / count: cost per install, reinstall, sign-up or event, as money (nano-units over count ×
 * 10^9), rounded only when shown (through a float, a spend of 12345678901234567.89 over one install
 * came out as …568.00; rounded to nano-units first, 0.014999999 / 3 showed $0.01).
 */
export const costPer = (spend: string, count: number): Ratio | undefined =>
  ratio(toNano(spend), BigInt(count) * NANO_PER_UNIT);

/**
 * product-notes "iOS limitations": for a campaign whose only store listing is iOS, these metrics are
 * shown as "-" (and sort as "-"). conversion and cost_per_signup derive from sign-ups, cost per
 * custom event from custom events, daywise revenue and classic retention from revenue and retention.
 */
export const IOS_HIDDEN = [
  'revenue',
  'roas',
  'cost_per_install',
  'cost_per_signup',
  'sign-ups',
  'conversion',
  'uninstalls',
  'suspicious_installs',
  'retention',
  'classic_retention',
  'daywise_revenue',
  'active_users',
  'custom_events',
  'cost_per_custom_events',
] as const;

export type IosHidden = (typeof IOS_HIDDEN)[number];

export const isIosOnly = (platforms: { ios: boolean; android: boolean }): boolean =>
  platforms.ios && !platforms.android;

/**
 * The sortable value of a campaign; undefined sorts after every number ("-" goes last). Ratios sort
 * exactly (sort.ts), so two rows whose shown values differ are in the order of those values.
 */
export type SortValue = number | bigint | Ratio | undefined;
export type SortValues = Record<Exclude<SortField, 'created_at'>, SortValue> & { created_at: number };

const SORT_HIDDEN_ON_IOS: Partial<Record<SortField, IosHidden>> = {
  signups: 'sign-ups',
  revenue: 'revenue',
  uninstalls: 'uninstalls',
  conversion: 'conversion',
  suspicious_installs: 'suspicious_installs',
  roas: 'roas',
};

/** The allowlist: each sort_field maps to a computed value, never to SQL. */
export function sortValues(t: Totals, view: ReportView, createdAt: Date, iosOnly: boolean): SortValues {
  const values: SortValues = {
    clicks: t.clicks,
    installs: t.installs,
    signups: t.signups,
    // Money sorts exactly, in nano-units: as floats, two revenues 0.01 apart above 1e15 tied.
    revenue: toNano(t.revenue),
    spend: toNano(t.spend),
    created_at: createdAt.getTime(),
    uninstalls: t.uninstalls,
    conversion: conversion(t, view),
    suspicious_installs: t.suspiciousInstalls,
    roas: roas(t),
  };
  if (iosOnly) {
    for (const field of Object.keys(SORT_HIDDEN_ON_IOS) as Exclude<SortField, 'created_at'>[]) {
      values[field] = undefined;
    }
  }
  return values;
}
