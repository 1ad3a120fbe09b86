-- Ad spend per day × campaign × ad set × creative × keyword × network, as restated by its sources
-- (server-key endpoint, CSV import, the sandbox_ads generator, later network pullers). Postgres
-- (spend_rows) holds the current value; each change writes two rows here through the outbox: the
-- old values with sign -1 and the new with sign 1, so sum(amount * sign) is the latest restatement
-- in every window and breakdown without FINAL. Nothing is ever updated.
CREATE TABLE IF NOT EXISTS spend (
  event_id String COMMENT 'fact id',
  project_id String COMMENT 'tenant',
  day Date COMMENT 'the spend day as given by the source, project-local',
  campaign_id UInt32 COMMENT 'campaigns.id in Postgres',
  display_id String COMMENT 'campaign display id',
  ad_set_id String COMMENT 'ad set id, empty when none',
  ad_set_name String COMMENT 'ad set name',
  creative_id String COMMENT 'ad creative id, empty when none',
  creative_name String COMMENT 'ad creative name',
  keyword_id String COMMENT 'keyword id, empty when none',
  keyword_name String COMMENT 'keyword',
  network LowCardinality(String) COMMENT 'ad network code (upper case, _ for spaces), e.g. SANDBOX_ADS',
  platform LowCardinality(String) COMMENT 'platform when the network says, else empty (always empty today)',
  amount Decimal(38, 9) COMMENT 'spend in the project currency',
  impressions Int64 COMMENT 'impressions reported by the network',
  clicks Int64 COMMENT 'clicks reported by the network (not our counted link clicks)',
  sign Int8 COMMENT '1 the new values, -1 the values they replace',
  recorded_at DateTime64(3, 'UTC') COMMENT 'when this row was recorded'
) ENGINE = MergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (project_id, campaign_id, day, event_id)
SETTINGS non_replicated_deduplication_window = 1000;

-- Spend carries no platform: it lands on platform '' whatever the raw row says (the report decides
-- how a platform filter treats it).
CREATE MATERIALIZED VIEW IF NOT EXISTS spend_daily_mv TO campaign_daily AS
SELECT project_id, campaign_id, day, '' AS platform, ad_set_id, creative_id, keyword_id,
  anyLastIf(ad_set_name, ad_set_name != '') AS ad_set_name,
  anyLastIf(creative_name, creative_name != '') AS creative_name,
  anyLastIf(keyword_name, keyword_name != '') AS keyword_name,
  sum(amount * sign) AS spend,
  sum(impressions * sign) AS impressions,
  sum(clicks * sign) AS network_clicks
FROM spend
GROUP BY project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id;
