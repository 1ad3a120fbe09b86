-- Uninstalls (uninstall tracking, product-notes): an install whose daily silent push failed as
-- "unregistered" on 3 consecutive days. One row per detected uninstall; the fact writer adds the
-- install's attribution (enrich-facts.ts), so reporting counts it for the install's campaign.
-- A later init or event from the install clears the state in Postgres and records an
-- install_events row of kind 'reinstall_after_uninstall'; the uninstall row itself stays (it happened).
CREATE TABLE IF NOT EXISTS uninstalls (
  event_id String COMMENT 'fact id',
  project_id String COMMENT 'tenant',
  install_instance_id String COMMENT 'install found uninstalled',
  ts DateTime64(3, 'UTC') COMMENT 'time of the push that made the third failed day',
  project_tz LowCardinality(String) COMMENT 'project IANA zone',
  day Date COMMENT 'project-local day of detection',
  platform LowCardinality(String) COMMENT 'install platform',
  provider LowCardinality(String) COMMENT 'FCM or APNS: the service that answered unregistered',
  failed_days UInt8 COMMENT 'consecutive failed days when detected (3)',
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
