-- Feeds campaign_daily.uninstalls (0007) from the uninstalls raw table (0014), by the fact's
-- project-local day and the install's campaign, as the other *_daily_mv views do.
CREATE MATERIALIZED VIEW IF NOT EXISTS uninstalls_daily_mv TO campaign_daily AS
SELECT project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id,
  anyLastIf(ad_set_name, ad_set_name != '') AS ad_set_name,
  anyLastIf(creative_name, creative_name != '') AS creative_name,
  anyLastIf(keyword_name, keyword_name != '') AS keyword_name,
  toUInt64(count()) AS uninstalls
FROM uninstalls
GROUP BY project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id;
