-- Install and app-open facts recorded by init (spec: init "register an install or app open").
-- The attributed campaign is decided later and lives in `attributions`.
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
  device_model String COMMENT 'device model'
) ENGINE = MergeTree
PARTITION BY toYYYYMM(ts)
ORDER BY (project_id, toDate(ts), install_instance_id, event_id)
SETTINGS non_replicated_deduplication_window = 1000;
