-- Payments (capture-payment) and their removals: a removal is a new row with sign -1, the same
-- amount, and the capture's time, day and attribution, so sum(amount * sign) nets out in every
-- window and breakdown; recorded_at says when the correction happened. Nothing is ever updated.
CREATE TABLE IF NOT EXISTS payments (
  event_id String COMMENT 'fact id',
  project_id String COMMENT 'tenant',
  install_instance_id String COMMENT 'install',
  user_id String COMMENT 'caller user id',
  payment_id String COMMENT 'caller payment id, empty when none',
  payment_row String COMMENT 'our payment row id (Postgres payments.id); a removal repeats it',
  type LowCardinality(String) COMMENT 'payment type (spec Rule 5)',
  status LowCardinality(String) COMMENT 'payment status (spec Rule 6)',
  amount Decimal(38, 9) COMMENT 'amount, in the project currency',
  sign Int8 COMMENT '1 capture, -1 removal',
  ts DateTime64(3, 'UTC') COMMENT 'capture time (a removal repeats its capture time)',
  recorded_at DateTime64(3, 'UTC') COMMENT 'when this row was recorded (the removal time for sign -1)',
  project_tz LowCardinality(String) COMMENT 'project IANA zone',
  day Date COMMENT 'project-local day',
  platform LowCardinality(String) COMMENT 'install platform',
  campaign_id UInt32 COMMENT 'install attribution: campaign, 0 organic',
  display_id String COMMENT 'campaign display id',
  network LowCardinality(String) COMMENT 'ad network code',
  ad_set_id String COMMENT 'ad set id',
  ad_set_name String COMMENT 'ad set name',
  creative_id String COMMENT 'ad creative id',
  creative_name String COMMENT 'ad creative name',
  keyword_id String COMMENT 'keyword id',
  keyword_name String COMMENT 'keyword',
  reengagement_campaign_id UInt32 COMMENT 'campaign of a re-engagement within the reattribution window, else 0',
  install_ts DateTime64(3, 'UTC') COMMENT 'install time (cohorts)',
  install_day Date COMMENT 'project-local install day (cohorts)'
) ENGINE = MergeTree
PARTITION BY toYYYYMM(ts)
ORDER BY (project_id, campaign_id, toDate(ts), event_id)
SETTINGS non_replicated_deduplication_window = 1000;
