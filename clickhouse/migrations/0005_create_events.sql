-- Custom events (capture-event), stored only for installs registered through trigger (Rule 1).
-- amount inside event_data is revenue (Rule 2).
CREATE TABLE IF NOT EXISTS events (
  event_id String COMMENT 'fact id (the client event_id when sent, else ours)',
  project_id String COMMENT 'tenant',
  install_instance_id String COMMENT 'install',
  user_id String COMMENT 'caller user id',
  event_name String COMMENT 'as sent (no normalisation)',
  ts DateTime64(3, 'UTC') COMMENT 'server receive time',
  project_tz LowCardinality(String) COMMENT 'project IANA zone',
  day Date COMMENT 'project-local day',
  platform LowCardinality(String) COMMENT 'install platform',
  amount Decimal(38, 9) COMMENT 'event_data.amount when a finite number, else 0',
  has_amount UInt8 COMMENT '1 when event_data.amount was a number (a revenue event)',
  event_data String COMMENT 'event_data as JSON',
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
ORDER BY (project_id, campaign_id, toDate(ts), event_name, event_id)
SETTINGS non_replicated_deduplication_window = 1000;
