// What the reporting endpoint asks for once its query string is parsed (http/parse/v1/reporting.ts).
// Every field is normalised, so two requests that mean the same thing have equal inputs (the 60 s
// report cache is keyed by them).

export const REPORT_VIEWS = ['user_acquisition', 'retargeting'] as const;
export type ReportView = (typeof REPORT_VIEWS)[number];

export const SORT_FIELDS = [
  'clicks',
  'installs',
  'signups',
  'revenue',
  'spend',
  'created_at',
  'uninstalls',
  'conversion',
  'suspicious_installs',
  'roas',
] as const;
export type SortField = (typeof SORT_FIELDS)[number];

export const SORT_ORDERS = ['ascending', 'descending'] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];

export type ReportPlatform = 'IOS' | 'ANDROID';

export type ReportInput = {
  /** Inclusive project-local days 'YYYY-MM-DD'; null = unbounded on that side. */
  from: string | null;
  to: string | null;
  active: boolean | null;
  /** Normalised network code (upper case, '_' for spaces). */
  network: string | null;
  metaAccountId: number | null;
  platform: ReportPlatform | null;
  search: string | null;
  view: ReportView;
  sortField: SortField;
  sortOrder: SortOrder;
  page: number;
  limit: number;
  /** null = every custom event / payment type the project has recorded. */
  events: string[] | null;
  paymentEvents: string[] | null;
  uniqueUserEvents: string[];
  /** null = off (no cost_per_* maps). */
  costPerEvent: string[] | null;
  activeUsersDays: number;
};
