-- Activity (campaign_daily.active_installs, retention_cohort.active) counts installs that called
-- init on the day (README: "active on a day when it called init that day"). install_events also
-- holds a `reinstall_after_uninstall` row when an uninstalled install comes back, and that comeback
-- may be an event or a payment, not an init: such a day was counted as activity (retention d1 100 %
-- for an install that only sent an event). An init that comes back writes its own app_open row, so
-- leaving the comeback rows out loses no init. MODIFY QUERY swaps each view's query atomically
-- (inserts going on meanwhile are seen by the old query or the new one, never by neither); rows
-- aggregated before this migration are left as they are. Re-runnable.

ALTER TABLE install_events_daily_mv MODIFY QUERY
SELECT project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id,
  anyLastIf(ad_set_name, ad_set_name != '') AS ad_set_name,
  anyLastIf(creative_name, creative_name != '') AS creative_name,
  anyLastIf(keyword_name, keyword_name != '') AS keyword_name,
  uniqState(install_instance_id) AS active_installs
FROM install_events
WHERE kind != 'reinstall_after_uninstall'
GROUP BY project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id;

ALTER TABLE retention_cohort_mv MODIFY QUERY
SELECT project_id, campaign_id, platform, ad_set_id, creative_id, keyword_id, install_day,
  toUInt16(dateDiff('day', install_day, day)) AS day_n,
  uniqState(install_instance_id) AS active
FROM install_events
WHERE dateDiff('day', install_day, day) BETWEEN 0 AND 30 AND kind != 'reinstall_after_uninstall'
GROUP BY project_id, campaign_id, platform, ad_set_id, creative_id, keyword_id, install_day, day_n;
