-- Sign-ups (trigger): one row per user registration, with the install's attribution at the time.
CREATE TABLE IF NOT EXISTS signups (
  event_id String COMMENT 'fact id',
  project_id String COMMENT 'tenant',
  install_instance_id String COMMENT 'install that registered the user',
  user_id String COMMENT 'caller user id',
  ts DateTime64(3, 'UTC') COMMENT 'server receive time',
  project_tz LowCardinality(String) COMMENT 'project IANA zone',
  day Date COMMENT 'project-local day',
  platform LowCardinality(String) COMMENT 'install platform',
  is_first_time UInt8 COMMENT '1 when the app said this is a new user (is_first_time_user / is_first_time_customer)',
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
