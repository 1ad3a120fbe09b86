-- The report shows a custom event as {count, amount} when it carried amounts in the window (README
-- "Reporting", custom_events), and capture-event takes 0 as an amount (a free trial start).
-- campaign_event_daily kept only the amounts' sum, so the report told "carried amounts" by a sum
-- other than 0, and an event whose amounts were all 0 showed as a bare count. amount_events counts
-- the events that carried an amount (events.has_amount = 1), per key like count.
-- Steps: the column (0 on the rows aggregated before), the view's query with it (MODIFY QUERY swaps
-- it atomically: an insert is seen by the old query or the new one), then a backfill of what the
-- raw events hold beyond what the column counts, per key. The backfill adds only that difference,
-- so running the file again adds nothing (and counts what an earlier run could not see). Run it
-- with the fact writers stopped (embedded mode always does: migrations run first): an event written
-- while the backfill reads could be counted twice. A user deleted before it (raw rows removed, the
-- aggregate's counts kept) leaves their events uncounted; the report still tells a sum other than 0.

ALTER TABLE campaign_event_daily
  ADD COLUMN IF NOT EXISTS amount_events SimpleAggregateFunction(sum, UInt64) DEFAULT 0 COMMENT 'events that carried an amount (events.has_amount = 1), an amount of 0 included' CODEC(ZSTD(3)) AFTER amount;

ALTER TABLE events_event_daily_mv MODIFY QUERY
SELECT project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id, event_name,
  toUInt64(count()) AS count,
  sumIf(amount, has_amount = 1) AS amount,
  toUInt64(countIf(has_amount = 1)) AS amount_events,
  uniqState(user_id) AS users
FROM events
GROUP BY project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id, event_name;

-- No dedup here: a second run's difference may be a block like the first's, and must still land.
INSERT INTO campaign_event_daily (project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id, event_name, amount_events)
SETTINGS insert_deduplicate = 0
SELECT project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id, event_name, toUInt64(sum(n))
FROM (
  SELECT project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id, event_name, toInt64(1) AS n
  FROM events
  WHERE has_amount = 1
  UNION ALL
  SELECT project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id, event_name, -toInt64(amount_events)
  FROM campaign_event_daily
  WHERE amount_events > 0)
GROUP BY project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id, event_name
HAVING sum(n) > 0;
