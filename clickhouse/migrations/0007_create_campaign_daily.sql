-- Campaign metrics per project-local day: the report's main read. One row per
-- (project, campaign, day, platform, ad set, creative, keyword) per insert block, summed on merge.
-- Each raw fact table feeds it through its own view below; a view fills only its own columns (the
-- rest stay 0 / empty state). Organic facts (campaign_id 0) are aggregated too.
-- Read with sum() / uniqMerge() and GROUP BY, never FINAL: merging is eventual and a key may have
-- many rows. The writer inserts with a dedup token and
-- deduplicate_blocks_in_dependent_materialized_views, so the window below lets a retried batch land
-- here once (test/clickhouse/materialized-views.test.ts).
-- uninstalls stays 0 until the uninstall-tracking issue adds its `uninstalls` raw table and a view
-- feeding this column.
CREATE TABLE IF NOT EXISTS campaign_daily (
  project_id String COMMENT 'tenant',
  campaign_id UInt32 COMMENT 'campaigns.id in Postgres; 0 = organic',
  day Date COMMENT 'project-local day of the fact (attributions: of the install)',
  platform LowCardinality(String) COMMENT 'ANDROID, IOS, … as on the fact; empty for spend (networks do not say)',
  ad_set_id String COMMENT 'ad set id, empty when none',
  creative_id String COMMENT 'ad creative id, empty when none',
  keyword_id String COMMENT 'search keyword id, empty when none',
  ad_set_name SimpleAggregateFunction(anyLast, String) COMMENT 'an ad set name seen for the key; may be empty on some rows, so read anyLastIf(ad_set_name, ad_set_name != empty)',
  creative_name SimpleAggregateFunction(anyLast, String) COMMENT 'a recent creative name (read like ad_set_name)',
  keyword_name SimpleAggregateFunction(anyLast, String) COMMENT 'a recent keyword (read like ad_set_name)',
  clicks SimpleAggregateFunction(sum, UInt64) COMMENT 'counted link clicks (clicks)',
  installs SimpleAggregateFunction(sum, UInt64) COMMENT 'attribution decisions of kind install',
  reinstalls SimpleAggregateFunction(sum, UInt64) COMMENT 'attribution decisions of kind reinstall',
  reengagements SimpleAggregateFunction(sum, UInt64) COMMENT 'attribution decisions of kind reengagement',
  suspicious_installs SimpleAggregateFunction(sum, UInt64) COMMENT 'installs and reinstalls flagged suspicious',
  click_through_installs SimpleAggregateFunction(sum, UInt64) COMMENT 'INORGANIC installs and reinstalls won by a click',
  view_through_installs SimpleAggregateFunction(sum, UInt64) COMMENT 'INORGANIC installs and reinstalls won by an ad view',
  signups SimpleAggregateFunction(sum, UInt64) COMMENT 'user registrations (signups)',
  uninstalls SimpleAggregateFunction(sum, UInt64) COMMENT 'uninstalls (fed by uninstalls_daily_mv, migration 0015)',
  revenue_events SimpleAggregateFunction(sum, UInt64) COMMENT 'events with an amount + completed payments net of removals (a removal block adds -1 as 2^64-1: sum() wraps back)',
  custom_events SimpleAggregateFunction(sum, UInt64) COMMENT 'custom events (events), with or without an amount',
  revenue SimpleAggregateFunction(sum, Decimal(38, 9)) COMMENT 'event amounts + completed payment amounts * sign, project currency',
  spend SimpleAggregateFunction(sum, Decimal(38, 9)) COMMENT 'ad spend (spend amount * sign), project currency',
  impressions SimpleAggregateFunction(sum, Int64) COMMENT 'impressions reported with spend (impressions * sign)',
  network_clicks SimpleAggregateFunction(sum, Int64) COMMENT 'clicks reported by the ad network with spend (clicks * sign)',
  active_installs AggregateFunction(uniq, String) COMMENT 'distinct install_instance_id seen in install_events that day (uniqMerge)'
) ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id)
SETTINGS non_replicated_deduplication_window = 1000;

CREATE MATERIALIZED VIEW IF NOT EXISTS clicks_daily_mv TO campaign_daily AS
SELECT project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id,
  anyLastIf(ad_set_name, ad_set_name != '') AS ad_set_name,
  anyLastIf(creative_name, creative_name != '') AS creative_name,
  anyLastIf(keyword_name, keyword_name != '') AS keyword_name,
  toUInt64(count()) AS clicks
FROM clicks
GROUP BY project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id;

-- Click- and view-through count only INORGANIC decisions of the two install kinds; a re-engagement
-- is not an install.
CREATE MATERIALIZED VIEW IF NOT EXISTS attributions_daily_mv TO campaign_daily AS
SELECT project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id,
  anyLastIf(ad_set_name, ad_set_name != '') AS ad_set_name,
  anyLastIf(creative_name, creative_name != '') AS creative_name,
  anyLastIf(keyword_name, keyword_name != '') AS keyword_name,
  toUInt64(countIf(kind = 'install')) AS installs,
  toUInt64(countIf(kind = 'reinstall')) AS reinstalls,
  toUInt64(countIf(kind = 'reengagement')) AS reengagements,
  toUInt64(countIf(suspicious = 1 AND kind IN ('install', 'reinstall'))) AS suspicious_installs,
  toUInt64(countIf(attribution_type = 'INORGANIC' AND touch_type = 'click' AND kind IN ('install', 'reinstall'))) AS click_through_installs,
  toUInt64(countIf(attribution_type = 'INORGANIC' AND touch_type = 'view' AND kind IN ('install', 'reinstall'))) AS view_through_installs
FROM attributions
GROUP BY project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS signups_daily_mv TO campaign_daily AS
SELECT project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id,
  anyLastIf(ad_set_name, ad_set_name != '') AS ad_set_name,
  anyLastIf(creative_name, creative_name != '') AS creative_name,
  anyLastIf(keyword_name, keyword_name != '') AS keyword_name,
  toUInt64(count()) AS signups
FROM signups
GROUP BY project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id;

-- spec Rule 2: an event with a numeric event_data.amount is revenue.
CREATE MATERIALIZED VIEW IF NOT EXISTS events_daily_mv TO campaign_daily AS
SELECT project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id,
  anyLastIf(ad_set_name, ad_set_name != '') AS ad_set_name,
  anyLastIf(creative_name, creative_name != '') AS creative_name,
  anyLastIf(keyword_name, keyword_name != '') AS keyword_name,
  toUInt64(count()) AS custom_events,
  toUInt64(countIf(has_amount = 1)) AS revenue_events,
  sumIf(amount, has_amount = 1) AS revenue
FROM events
GROUP BY project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id;

-- Only completed payments are revenue (spec Rule 6). A removal (sign -1) repeats its capture's day
-- and attribution, so it nets out on the same key.
CREATE MATERIALIZED VIEW IF NOT EXISTS payments_daily_mv TO campaign_daily AS
SELECT project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id,
  anyLastIf(ad_set_name, ad_set_name != '') AS ad_set_name,
  anyLastIf(creative_name, creative_name != '') AS creative_name,
  anyLastIf(keyword_name, keyword_name != '') AS keyword_name,
  toUInt64(sum(toInt64(sign))) AS revenue_events,
  sum(amount * sign) AS revenue
FROM payments
WHERE status = 'PAYMENT_COMPLETED'
GROUP BY project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS install_events_daily_mv TO campaign_daily AS
SELECT project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id,
  anyLastIf(ad_set_name, ad_set_name != '') AS ad_set_name,
  anyLastIf(creative_name, creative_name != '') AS creative_name,
  anyLastIf(keyword_name, keyword_name != '') AS keyword_name,
  uniqState(install_instance_id) AS active_installs
FROM install_events
GROUP BY project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id;
