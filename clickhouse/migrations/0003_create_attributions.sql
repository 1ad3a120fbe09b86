-- Attribution decisions, one row per decision, explainable: method, winning click, candidates
-- considered, windows applied, confidence. kind: install, reinstall or reengagement.
CREATE TABLE IF NOT EXISTS attributions (
  decision_id String COMMENT 'fact id of the decision',
  project_id String COMMENT 'tenant',
  install_instance_id String COMMENT 'install id',
  kind LowCardinality(String) COMMENT 'install, reinstall or reengagement',
  ts DateTime64(3, 'UTC') COMMENT 'decision time',
  install_ts DateTime64(3, 'UTC') COMMENT 'install (or re-engagement) time being attributed',
  project_tz LowCardinality(String) COMMENT 'project IANA zone',
  day Date COMMENT 'project-local day of install_ts',
  platform LowCardinality(String) COMMENT 'install platform',
  attribution_type LowCardinality(String) COMMENT 'ORGANIC or INORGANIC',
  method LowCardinality(String) COMMENT 'play_referrer, link, ad_id, fingerprint, meta_referrer, apple_search_ads or organic',
  touch_type LowCardinality(String) COMMENT 'click, view or empty for organic',
  campaign_id UInt32 COMMENT 'attributed campaign, 0 for organic',
  display_id String COMMENT 'campaign display id',
  network LowCardinality(String) COMMENT 'ad network code',
  ad_set_id String COMMENT 'ad set id',
  ad_set_name String COMMENT 'ad set name',
  creative_id String COMMENT 'ad creative id',
  creative_name String COMMENT 'ad creative name',
  keyword_id String COMMENT 'keyword id',
  keyword_name String COMMENT 'keyword',
  click_id String COMMENT 'winning click, empty when none',
  click_ts DateTime64(3, 'UTC') COMMENT 'winning click time; 1970-01-01 without a click',
  ctit_ms Int64 COMMENT 'click-to-install time in ms, -1 without a click',
  confidence Float32 COMMENT '1 for deterministic methods, lower for probabilistic',
  suspicious UInt8 COMMENT '1 when flagged (CTIT under 10 s, or a Play install begun before the click)',
  suspicious_reason String COMMENT 'why it was flagged',
  candidates String COMMENT 'JSON array of the candidates considered and why each won or lost',
  windows String COMMENT 'JSON of the windows applied (lookback, fingerprint, reattribution)'
) ENGINE = MergeTree
PARTITION BY toYYYYMM(install_ts)
ORDER BY (project_id, campaign_id, toDate(install_ts), decision_id)
SETTINGS non_replicated_deduplication_window = 1000;
