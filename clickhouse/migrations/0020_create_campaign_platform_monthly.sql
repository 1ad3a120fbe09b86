-- Report totals per campaign, project-local month and platform: campaign_platform_daily (0016)
-- rolled up to months. The report ranks every campaign of the project over its window; over a
-- year that read ~1 M daily rows at 10 M facts (~90 ms, the largest statement of a 365-day page).
-- The window's whole months now come from here (1,000 campaigns × 12 months × 2 platforms) and
-- only its partial months at either end from the daily table (reporting.ts selectCampaignTotals).
-- Fed by a view on campaign_platform_daily, itself fed from campaign_daily, so it counts exactly
-- what they count; a retried batch lands here once too (dedup window below; the writer inserts
-- with deduplicate_blocks_in_dependent_materialized_views). Read with sum() and GROUP BY, never
-- FINAL. No distinct counts: active users are read from the daily table. The backfill copies what
-- campaign_platform_daily held when the view was created; run it with the fact writers stopped
-- (embedded mode always does: migrations run first), or rows written between the two statements
-- are counted twice.

CREATE TABLE IF NOT EXISTS campaign_platform_monthly (
  project_id String COMMENT 'tenant' CODEC(ZSTD(3)),
  campaign_id UInt32 COMMENT 'campaigns.id in Postgres; 0 = organic' CODEC(ZSTD(3)),
  month Date COMMENT 'first day of the project-local month (toStartOfMonth(day))' CODEC(Delta, ZSTD(3)),
  platform LowCardinality(String) COMMENT 'ANDROID, IOS, … as on the fact; empty for spend' CODEC(ZSTD(3)),
  clicks SimpleAggregateFunction(sum, UInt64) COMMENT 'counted link clicks' CODEC(ZSTD(3)),
  installs SimpleAggregateFunction(sum, UInt64) COMMENT 'attribution decisions of kind install' CODEC(ZSTD(3)),
  reinstalls SimpleAggregateFunction(sum, UInt64) COMMENT 'attribution decisions of kind reinstall' CODEC(ZSTD(3)),
  reengagements SimpleAggregateFunction(sum, UInt64) COMMENT 'attribution decisions of kind reengagement' CODEC(ZSTD(3)),
  suspicious_installs SimpleAggregateFunction(sum, UInt64) COMMENT 'installs and reinstalls flagged suspicious' CODEC(ZSTD(3)),
  click_through_installs SimpleAggregateFunction(sum, UInt64) COMMENT 'INORGANIC installs and reinstalls won by a click' CODEC(ZSTD(3)),
  view_through_installs SimpleAggregateFunction(sum, UInt64) COMMENT 'INORGANIC installs and reinstalls won by an ad view' CODEC(ZSTD(3)),
  signups SimpleAggregateFunction(sum, UInt64) COMMENT 'user registrations' CODEC(ZSTD(3)),
  uninstalls SimpleAggregateFunction(sum, UInt64) COMMENT 'uninstalls' CODEC(ZSTD(3)),
  revenue_events SimpleAggregateFunction(sum, UInt64) COMMENT 'events with an amount + completed payments net of removals (wraps like campaign_daily: read with sum())' CODEC(ZSTD(3)),
  custom_events SimpleAggregateFunction(sum, UInt64) COMMENT 'custom events, with or without an amount' CODEC(ZSTD(3)),
  revenue SimpleAggregateFunction(sum, Decimal(38, 9)) COMMENT 'event amounts + completed payment amounts * sign, project currency' CODEC(ZSTD(3)),
  spend SimpleAggregateFunction(sum, Decimal(38, 9)) COMMENT 'ad spend (latest restatement), project currency' CODEC(ZSTD(3)),
  impressions SimpleAggregateFunction(sum, Int64) COMMENT 'impressions reported with spend' CODEC(ZSTD(3)),
  network_clicks SimpleAggregateFunction(sum, Int64) COMMENT 'clicks reported by the ad network with spend' CODEC(ZSTD(3))
) ENGINE = AggregatingMergeTree
PARTITION BY toYear(month)
ORDER BY (project_id, month, campaign_id, platform)
SETTINGS non_replicated_deduplication_window = 1000;

CREATE MATERIALIZED VIEW IF NOT EXISTS campaign_platform_monthly_mv TO campaign_platform_monthly AS
SELECT project_id, campaign_id, toStartOfMonth(day) AS month, platform,
  sum(clicks) AS clicks,
  sum(installs) AS installs,
  sum(reinstalls) AS reinstalls,
  sum(reengagements) AS reengagements,
  sum(suspicious_installs) AS suspicious_installs,
  sum(click_through_installs) AS click_through_installs,
  sum(view_through_installs) AS view_through_installs,
  sum(signups) AS signups,
  sum(uninstalls) AS uninstalls,
  sum(revenue_events) AS revenue_events,
  sum(custom_events) AS custom_events,
  sum(revenue) AS revenue,
  sum(spend) AS spend,
  sum(impressions) AS impressions,
  sum(network_clicks) AS network_clicks
FROM campaign_platform_daily
GROUP BY project_id, campaign_id, month, platform;

INSERT INTO campaign_platform_monthly
SETTINGS insert_deduplication_token = 'migration-0020-backfill'
SELECT project_id, campaign_id, toStartOfMonth(day) AS month, platform,
  sum(clicks), sum(installs), sum(reinstalls), sum(reengagements), sum(suspicious_installs),
  sum(click_through_installs), sum(view_through_installs), sum(signups), sum(uninstalls), sum(revenue_events),
  sum(custom_events), sum(revenue), sum(spend), sum(impressions), sum(network_clicks)
FROM campaign_platform_daily
GROUP BY project_id, campaign_id, month, platform;
