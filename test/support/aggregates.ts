// The report page's ClickHouse aggregates (migrations 0007-0010, laid out again by 0019): fed by
// views from the raw facts, read per page of campaigns.
export const PAGE_AGGREGATES = [
  'campaign_daily',
  'campaign_event_daily',
  'campaign_payment_daily',
  'retention_cohort',
  'revenue_cohort',
];
