-- Completed payments per campaign key, project-local day and payment type, net of removals: the
-- report's payment_events {count, total}. A removal (sign -1) repeats its capture's day and
-- attribution, so count and total net out on the same key; users counts every payer seen (a
-- distinct count cannot subtract). Read with sum() / uniqMerge() and GROUP BY, never FINAL.
CREATE TABLE IF NOT EXISTS campaign_payment_daily (
  project_id String COMMENT 'tenant',
  campaign_id UInt32 COMMENT 'install attribution: campaign, 0 organic',
  day Date COMMENT 'project-local day of the capture',
  platform LowCardinality(String) COMMENT 'install platform',
  ad_set_id String COMMENT 'ad set id, empty when none',
  creative_id String COMMENT 'ad creative id, empty when none',
  keyword_id String COMMENT 'keyword id, empty when none',
  type LowCardinality(String) COMMENT 'payment type (spec Rule 5)',
  count SimpleAggregateFunction(sum, Int64) COMMENT 'completed payments net of removals (sum of sign)',
  total SimpleAggregateFunction(sum, Decimal(38, 9)) COMMENT 'amount * sign, project currency',
  users AggregateFunction(uniq, String) COMMENT 'distinct user_id of the payments, removals included (uniqMerge)'
) ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id, type)
SETTINGS non_replicated_deduplication_window = 1000;

CREATE MATERIALIZED VIEW IF NOT EXISTS payments_payment_daily_mv TO campaign_payment_daily AS
SELECT project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id, type,
  sum(toInt64(sign)) AS count,
  sum(amount * sign) AS total,
  uniqState(user_id) AS users
FROM payments
WHERE status = 'PAYMENT_COMPLETED'
GROUP BY project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id, type;
