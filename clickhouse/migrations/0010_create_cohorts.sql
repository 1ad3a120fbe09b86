-- Install cohorts for retention and day-N revenue, precomputed because a retention join over raw
-- facts is too slow on the embedded engine (STYLE.md "Performance facts"). Key: the install's
-- attribution and project-local install day, plus day_n = days from the install day to the fact's
-- day, kept for 0 <= day_n <= 30. The cohort size is campaign_daily.installs on the install day.
-- Read with sum() / uniqMerge() and GROUP BY, never FINAL.
CREATE TABLE IF NOT EXISTS retention_cohort (
  project_id String COMMENT 'tenant',
  campaign_id UInt32 COMMENT 'install attribution: campaign, 0 organic',
  platform LowCardinality(String) COMMENT 'install platform',
  ad_set_id String COMMENT 'ad set id, empty when none',
  creative_id String COMMENT 'ad creative id, empty when none',
  keyword_id String COMMENT 'keyword id, empty when none',
  install_day Date COMMENT 'project-local install day (the cohort)',
  day_n UInt16 COMMENT 'days since the install day, 0 to 30',
  active AggregateFunction(uniq, String) COMMENT 'distinct install_instance_id with an install or app open on day_n (uniqMerge)'
) ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(install_day)
ORDER BY (project_id, campaign_id, platform, ad_set_id, creative_id, keyword_id, install_day, day_n)
SETTINGS non_replicated_deduplication_window = 1000;

CREATE MATERIALIZED VIEW IF NOT EXISTS retention_cohort_mv TO retention_cohort AS
SELECT project_id, campaign_id, platform, ad_set_id, creative_id, keyword_id, install_day,
  toUInt16(dateDiff('day', install_day, day)) AS day_n,
  uniqState(install_instance_id) AS active
FROM install_events
WHERE dateDiff('day', install_day, day) BETWEEN 0 AND 30
GROUP BY project_id, campaign_id, platform, ad_set_id, creative_id, keyword_id, install_day, day_n;

CREATE TABLE IF NOT EXISTS revenue_cohort (
  project_id String COMMENT 'tenant',
  campaign_id UInt32 COMMENT 'install attribution: campaign, 0 organic',
  platform LowCardinality(String) COMMENT 'install platform',
  ad_set_id String COMMENT 'ad set id, empty when none',
  creative_id String COMMENT 'ad creative id, empty when none',
  keyword_id String COMMENT 'keyword id, empty when none',
  install_day Date COMMENT 'project-local install day (the cohort)',
  day_n UInt16 COMMENT 'days since the install day, 0 to 30',
  revenue SimpleAggregateFunction(sum, Decimal(38, 9)) COMMENT 'event amounts + completed payment amounts * sign on day_n, project currency'
) ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(install_day)
ORDER BY (project_id, campaign_id, platform, ad_set_id, creative_id, keyword_id, install_day, day_n)
SETTINGS non_replicated_deduplication_window = 1000;

CREATE MATERIALIZED VIEW IF NOT EXISTS payments_revenue_cohort_mv TO revenue_cohort AS
SELECT project_id, campaign_id, platform, ad_set_id, creative_id, keyword_id, install_day,
  toUInt16(dateDiff('day', install_day, day)) AS day_n,
  sum(amount * sign) AS revenue
FROM payments
WHERE status = 'PAYMENT_COMPLETED' AND dateDiff('day', install_day, day) BETWEEN 0 AND 30
GROUP BY project_id, campaign_id, platform, ad_set_id, creative_id, keyword_id, install_day, day_n;

CREATE MATERIALIZED VIEW IF NOT EXISTS events_revenue_cohort_mv TO revenue_cohort AS
SELECT project_id, campaign_id, platform, ad_set_id, creative_id, keyword_id, install_day,
  toUInt16(dateDiff('day', install_day, day)) AS day_n,
  sumIf(amount, has_amount = 1) AS revenue
FROM events
WHERE has_amount = 1 AND dateDiff('day', install_day, day) BETWEEN 0 AND 30
GROUP BY project_id, campaign_id, platform, ad_set_id, creative_id, keyword_id, install_day, day_n;
