-- Custom events per campaign key, project-local day and event name: count, amount and distinct users
-- for the report's custom_events (count, amount, unique_count). Event names are kept as sent (any
-- string, '__proto__' included). Read with sum() / uniqMerge() and GROUP BY, never FINAL.
CREATE TABLE IF NOT EXISTS campaign_event_daily (
  project_id String COMMENT 'tenant',
  campaign_id UInt32 COMMENT 'install attribution: campaign, 0 organic',
  day Date COMMENT 'project-local day of the event',
  platform LowCardinality(String) COMMENT 'install platform',
  ad_set_id String COMMENT 'ad set id, empty when none',
  creative_id String COMMENT 'ad creative id, empty when none',
  keyword_id String COMMENT 'keyword id, empty when none',
  event_name String COMMENT 'event name as sent',
  count SimpleAggregateFunction(sum, UInt64) COMMENT 'events captured',
  amount SimpleAggregateFunction(sum, Decimal(38, 9)) COMMENT 'sum of event_data.amount (0 for events without one)',
  users AggregateFunction(uniq, String) COMMENT 'distinct user_id (uniqMerge)'
) ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id, event_name)
SETTINGS non_replicated_deduplication_window = 1000;

CREATE MATERIALIZED VIEW IF NOT EXISTS events_event_daily_mv TO campaign_event_daily AS
SELECT project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id, event_name,
  toUInt64(count()) AS count,
  sumIf(amount, has_amount = 1) AS amount,
  uniqState(user_id) AS users
FROM events
GROUP BY project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id, event_name;
