-- Stable views for data engineers (README "For data engineers"). Their names and columns are a
-- contract: a change adds a column or a `_v2` view, never renames or retypes one. They read the same
-- aggregates and facts as the API, so their numbers match the report's.

-- Campaign metrics per project-local day, every platform, ad set, creative and keyword summed.
-- Filter on project_id and day (pushed down to campaign_daily's primary key).
CREATE VIEW IF NOT EXISTS v_campaign_daily (
  project_id String COMMENT 'tenant',
  campaign_id UInt32 COMMENT 'campaigns.id in Postgres; 0 = organic (never a report row)',
  day Date COMMENT 'project-local day',
  clicks UInt64 COMMENT 'counted link clicks',
  installs UInt64 COMMENT 'attributed first installs (decisions of kind install)',
  reinstalls UInt64 COMMENT 'reinstalls attributed to the campaign',
  reengagements UInt64 COMMENT 're-engagements (deeplink opens of attributed installs)',
  suspicious_installs UInt64 COMMENT 'installs and reinstalls flagged suspicious',
  click_through_installs UInt64 COMMENT 'INORGANIC installs and reinstalls won by a click',
  view_through_installs UInt64 COMMENT 'INORGANIC installs and reinstalls won by an ad view',
  signups UInt64 COMMENT 'user registrations',
  uninstalls UInt64 COMMENT 'uninstalls (three failed daily pushes in a row)',
  custom_events UInt64 COMMENT 'custom events captured',
  revenue_events UInt64 COMMENT 'events with an amount + completed payments net of removals',
  revenue Decimal(38, 9) COMMENT 'event amounts + completed payments net of removals, project currency',
  spend Decimal(38, 9) COMMENT 'ad spend (latest restatement), project currency',
  impressions Int64 COMMENT 'impressions reported with spend',
  network_clicks Int64 COMMENT 'clicks reported by the ad network with spend',
  active_installs UInt64 COMMENT 'distinct installs with an install or app open that day (do not add days up)'
) AS
SELECT project_id, campaign_id, day,
  toUInt64(sum(clicks)) AS clicks,
  toUInt64(sum(installs)) AS installs,
  toUInt64(sum(reinstalls)) AS reinstalls,
  toUInt64(sum(reengagements)) AS reengagements,
  toUInt64(sum(suspicious_installs)) AS suspicious_installs,
  toUInt64(sum(click_through_installs)) AS click_through_installs,
  toUInt64(sum(view_through_installs)) AS view_through_installs,
  toUInt64(sum(signups)) AS signups,
  toUInt64(sum(uninstalls)) AS uninstalls,
  toUInt64(sum(custom_events)) AS custom_events,
  toUInt64(sum(revenue_events)) AS revenue_events,
  toDecimal128(sum(revenue), 9) AS revenue,
  toDecimal128(sum(spend), 9) AS spend,
  toInt64(sum(impressions)) AS impressions,
  toInt64(sum(network_clicks)) AS network_clicks,
  toUInt64(uniqMerge(active_installs)) AS active_installs
FROM campaign_daily
GROUP BY project_id, campaign_id, day;

-- Attribution decision records, one row per decision (kind install, reinstall or reengagement),
-- with the evidence: method, winning click, candidates considered, windows applied.
CREATE VIEW IF NOT EXISTS v_attributed_installs (
  decision_id String COMMENT 'decision id (get-attribution-result match.decision_id)',
  project_id String COMMENT 'tenant',
  install_instance_id String COMMENT 'install id sent by the app',
  kind String COMMENT 'install, reinstall or reengagement',
  installed_at DateTime64(3, 'UTC') COMMENT 'install (or re-engagement) time being attributed',
  install_day Date COMMENT 'project-local day of installed_at (the report day)',
  decided_at DateTime64(3, 'UTC') COMMENT 'when the decision was made',
  project_timezone String COMMENT 'project IANA zone used for install_day',
  platform String COMMENT 'install platform',
  attribution_type String COMMENT 'ORGANIC or INORGANIC',
  method String COMMENT 'play_referrer, link, ad_id, fingerprint, meta_referrer, apple_search_ads or organic',
  touch_type String COMMENT 'click, view, or empty for organic',
  campaign_id UInt32 COMMENT 'attributed campaign, 0 for organic',
  campaign_display_id String COMMENT 'campaign display id',
  network String COMMENT 'ad network code',
  ad_set_id String COMMENT 'ad set id',
  ad_set_name String COMMENT 'ad set name',
  creative_id String COMMENT 'ad creative id',
  creative_name String COMMENT 'ad creative name',
  keyword_id String COMMENT 'keyword id',
  keyword_name String COMMENT 'keyword',
  click_id String COMMENT 'winning click, empty without one',
  clicked_at Nullable(DateTime64(3, 'UTC')) COMMENT 'winning click time, NULL without a click',
  click_to_install_ms Nullable(Int64) COMMENT 'click-to-install time in ms, NULL without a click',
  confidence Float32 COMMENT '1 for deterministic methods, lower for probabilistic ones',
  is_suspicious UInt8 COMMENT '1 when flagged suspicious',
  suspicious_reason String COMMENT 'why it was flagged, empty otherwise',
  candidates String COMMENT 'JSON array of the candidates considered and why each won or lost',
  windows String COMMENT 'JSON of the windows applied (lookback, fingerprint, reattribution)'
) AS
SELECT decision_id, project_id, install_instance_id, toString(kind) AS kind,
  install_ts AS installed_at, day AS install_day, ts AS decided_at, toString(project_tz) AS project_timezone,
  toString(platform) AS platform, toString(attribution_type) AS attribution_type, toString(method) AS method,
  toString(touch_type) AS touch_type, campaign_id, display_id AS campaign_display_id, toString(network) AS network,
  ad_set_id, ad_set_name, creative_id, creative_name, keyword_id, keyword_name, click_id,
  if(click_id = '', NULL, click_ts) AS clicked_at,
  if(ctit_ms < 0, NULL, ctit_ms) AS click_to_install_ms,
  confidence, suspicious AS is_suspicious, suspicious_reason, candidates, windows
FROM attributions;
