-- Campaign link clicks: one row per counted click (crawlers are not recorded). Written by the fact
-- writer from the Postgres outbox with a per-batch dedup token, so the dedup window is set here and
-- on every target fed by a view.
CREATE TABLE IF NOT EXISTS clicks (
  click_id String COMMENT 'our click id; carried in the Play referrer as lr_click_id',
  project_id String COMMENT 'tenant',
  campaign_id UInt32 COMMENT 'campaigns.id in Postgres',
  display_id String COMMENT 'campaign display id at click time',
  ts DateTime64(3, 'UTC') COMMENT 'click time',
  project_tz LowCardinality(String) COMMENT 'project IANA zone at click time',
  day Date COMMENT 'project-local day of the click',
  ip String COMMENT 'source IP per TRUST_PROXY',
  user_agent String COMMENT 'raw User-Agent (capped at 1024 chars)',
  platform LowCardinality(String) COMMENT 'ANDROID, IOS, DESKTOP or OTHER',
  os LowCardinality(String) COMMENT 'parsed OS name',
  os_version String COMMENT 'parsed OS version',
  device_vendor LowCardinality(String) COMMENT 'parsed device vendor',
  device_model String COMMENT 'parsed device model',
  browser LowCardinality(String) COMMENT 'parsed browser name',
  in_app_browser LowCardinality(String) COMMENT 'INSTAGRAM, FACEBOOK, TIKTOK, SNAPCHAT, LINKEDIN, X or empty',
  network LowCardinality(String) COMMENT 'ad network code of the campaign or link, empty when none',
  ad_set_id String COMMENT 'ad set id from the link',
  ad_set_name String COMMENT 'ad set name from the link',
  creative_id String COMMENT 'ad creative id from the link',
  creative_name String COMMENT 'ad creative name from the link',
  keyword_id String COMMENT 'search keyword id from the link',
  keyword_name String COMMENT 'search keyword from the link',
  gclid String COMMENT 'Google click id',
  gbraid String COMMENT 'Google iOS app click id',
  wbraid String COMMENT 'Google web-to-app click id',
  fbclid String COMMENT 'Meta click id',
  ttclid String COMMENT 'TikTok click id',
  utm_source String COMMENT 'utm_source',
  utm_medium String COMMENT 'utm_medium',
  utm_campaign String COMMENT 'utm_campaign',
  utm_term String COMMENT 'utm_term',
  utm_content String COMMENT 'utm_content',
  ad_id String COMMENT 'advertising id (gaid or idfa) passed on the link, lower-case',
  referrer String COMMENT 'Referer header (capped at 1024 chars)'
) ENGINE = MergeTree
PARTITION BY toYYYYMM(ts)
ORDER BY (project_id, campaign_id, toDate(ts), click_id)
SETTINGS non_replicated_deduplication_window = 1000;

-- Clicks keyed for install matching: by our click id and by advertising id.
CREATE TABLE IF NOT EXISTS clicks_by_key (
  project_id String COMMENT 'tenant',
  match_key String COMMENT 'c:<click_id> or a:<ad_id>',
  ts DateTime64(3, 'UTC') COMMENT 'click time',
  click_id String COMMENT 'click id',
  campaign_id UInt32 COMMENT 'campaign',
  platform LowCardinality(String) COMMENT 'click platform'
) ENGINE = MergeTree
ORDER BY (project_id, match_key, ts)
TTL toDateTime(ts) + INTERVAL 120 DAY
SETTINGS non_replicated_deduplication_window = 1000;

CREATE MATERIALIZED VIEW IF NOT EXISTS clicks_by_key_mv TO clicks_by_key AS
SELECT project_id, match_key, ts, click_id, campaign_id, platform
FROM clicks
ARRAY JOIN arrayFilter(k -> k != '', ['c:' || click_id, if(ad_id = '', '', 'a:' || ad_id)]) AS match_key;

-- Clicks keyed by source IP, for probabilistic matching within the fingerprint window.
CREATE TABLE IF NOT EXISTS clicks_by_ip (
  project_id String COMMENT 'tenant',
  ip String COMMENT 'source IP',
  ts DateTime64(3, 'UTC') COMMENT 'click time',
  click_id String COMMENT 'click id',
  campaign_id UInt32 COMMENT 'campaign',
  platform LowCardinality(String) COMMENT 'click platform',
  os LowCardinality(String) COMMENT 'parsed OS name',
  os_version String COMMENT 'parsed OS version',
  device_model String COMMENT 'parsed device model'
) ENGINE = MergeTree
ORDER BY (project_id, ip, ts)
TTL toDateTime(ts) + INTERVAL 30 DAY
SETTINGS non_replicated_deduplication_window = 1000;

CREATE MATERIALIZED VIEW IF NOT EXISTS clicks_by_ip_mv TO clicks_by_ip AS
SELECT project_id, ip, ts, click_id, campaign_id, platform, os, os_version, device_model
FROM clicks;
