// What campaign-report.ts returns: numbers, not text (http/present/report-row.ts formats them).
import type { ReportCampaignRecord, ReportNetworkAccount } from '../../store/postgres/report-campaigns.ts';
import type { StoreListing } from '../../store/postgres/store-listings.ts';
import type { CohortCounts, DaywiseRevenue } from './cohorts.ts';
import type { Totals } from './metrics.ts';
import type { ReportView } from './report-input.ts';

/** `amountEvents`: events that carried an amount, 0 included (the event then shows its amount). */
export type EventStat = { count: number; amount: string; amountEvents: number; users: number };
export type PaymentStat = { count: number; total: string; users: number };

/** Everything a report shows for one level (campaign, ad set, creative or keyword). */
export type LevelStats = {
  totals: Totals;
  /** Keyed by the displayed names only; Maps, so `__proto__` or `constructor` are plain keys. */
  events: Map<string, EventStat>;
  payments: Map<string, PaymentStat>;
  cohorts: CohortCounts;
  daywise: DaywiseRevenue;
};

export type NamedLevel = LevelStats & { id: string; name: string };
export type AdSetReport = NamedLevel & { creatives: NamedLevel[]; keywords: NamedLevel[] };

export type CampaignReportRow = LevelStats & {
  campaign: ReportCampaignRecord;
  listings: StoreListing[];
  networkAccount: ReportNetworkAccount | null;
  ios: boolean;
  android: boolean;
  iosOnly: boolean;
  activeUsers: number;
  activity: number;
  adSets: AdSetReport[];
  keywords: NamedLevel[];
};

export type CampaignReport = {
  rows: CampaignReportRow[];
  total: number;
  page: number;
  limit: number;
  pages: number;
  view: ReportView;
  displayCurrency: string;
  hasDateFilter: boolean;
  /** The custom event names and payment types every row shows, in display order. */
  eventNames: string[];
  paymentTypes: string[];
  uniqueNames: Set<string>;
  /** Names given a cost per event; null = cost_per_event not asked. */
  costPerNames: Set<string> | null;
};
