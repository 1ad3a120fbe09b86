// The ClickHouse raw tables the fact writer feeds from the outbox. A feature adds its table here
// together with its clickhouse/migrations file.
import type { KeyedBy } from '../../store/clickhouse/user-data.ts';

export const FACT_TABLES = [
  'clicks',
  'install_events',
  'attributions',
  'signups',
  'events',
  'payments',
  'spend',
  'uninstalls',
  'web_events',
] as const;
export type FactTable = (typeof FACT_TABLES)[number];

/** Each table's column holding the outbox's fact_id: retries and replays skip ids already stored. */
export const FACT_ID_COLUMN: Record<FactTable, string> = {
  clicks: 'click_id',
  install_events: 'event_id',
  attributions: 'decision_id',
  signups: 'event_id',
  events: 'event_id',
  payments: 'event_id',
  spend: 'event_id',
  uninstalls: 'event_id',
  web_events: 'event_id',
};

export const isFactTable = (t: string): t is FactTable => (FACT_TABLES as readonly string[]).includes(t);

/**
 * Every ClickHouse table holding rows about one user or device, and how GDPR deletion
 * (domain/users/delete-user.ts) finds them: `user` by user_id (or, for rows naming no user, by the
 * user's installs), `install` by install_instance_id, `click` by the installs' winning click ids
 * (`click key`: by those ids or their `c:` match keys, since a `c:` row of clicks_by_key leaves
 * click_id empty), `delivery` by the ids of the user's deliveries an attempt sent.
 * Materialized views never follow deletes from their source, so a view target that keeps such rows
 * must be listed here too (clicks_by_key / clicks_by_ip). The aggregates (campaign_daily,
 * campaign_event_daily, campaign_payment_daily, retention_cohort, revenue_cohort) hold counters and
 * uniq sketches per campaign and day, no row about one user; they keep counting a deleted user.
 */
export const USER_DATA_TABLES: readonly { table: string; by: KeyedBy }[] = [
  { table: 'signups', by: 'user' },
  { table: 'events', by: 'user' },
  { table: 'payments', by: 'user' },
  { table: 'install_events', by: 'install' },
  { table: 'attributions', by: 'install' },
  { table: 'uninstalls', by: 'install' },
  { table: 'clicks', by: 'click' },
  { table: 'clicks_by_key', by: 'click key' },
  { table: 'clicks_by_ip', by: 'click' },
  { table: 'web_events', by: 'web user' },
  // The delivery log (not a fact table): the receiver's answer can quote the user (an e-mail).
  { table: 'delivery_attempts', by: 'delivery' },
];
