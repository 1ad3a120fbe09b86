-- Install and app-open facts recorded by init (spec: init "register an install or app open").
-- The fact writer adds the install's attribution when it is decided (enrich-facts.ts), so
-- activity (retention, active users) breaks down by campaign without joins.
CREATE TABLE IF NOT EXISTS install_events (
  event_id String COMMENT 'fact id',
  project_id String COMMENT 'tenant',
  install_instance_id String COMMENT 'install id sent by the app',
  kind LowCardinality(String) COMMENT 'install (first init of an install id) or app_open',
  ts DateTime64(3, 'UTC') COMMENT 'server receive time',
  project_tz LowCardinality(String) COMMENT 'project IANA zone',
  day Date COMMENT 'project-local day',
  platform LowCardinality(String) COMMENT 'ANDROID, IOS or as sent',
  app_version String COMMENT 'app version name',
  package_version String COMMENT 'SDK version',
  ip String COMMENT 'device IP per TRUST_PROXY',
  os LowCardinality(String) COMMENT 'OS name',
  os_version String COMMENT 'OS version',
  device_model String COMMENT 'device model',
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
ORDER BY (project_id, toDate(ts), install_instance_id, event_id)
SETTINGS non_replicated_deduplication_window = 1000;
