-- Revenue is money coming in. A completed payment of type FUNDS_WITHDRAWAL (a wallet app's
-- withdrawal), SUBSCRIPTION_CANCELLED, SUBSCRIPTION_REFUNDED or SUBSCRIPTION_BILLING_ISSUE moves no
-- money in, yet the views fed it into revenue, revenue_events, ROAS and day-N revenue whatever its
-- type. They now leave those four types out (the rule SKAN's revenue condition already follows,
-- domain/skan/skan-revenue.ts). campaign_payment_daily keeps every type: the report's
-- payment_events still shows withdrawals and refunds per type, with their totals. A removal
-- (sign -1) repeats its capture's type and status, so a removed withdrawal subtracts nothing either.
-- Steps: each view's query with the type filter (MODIFY QUERY swaps it atomically), then one
-- correcting insert per aggregate that takes back what those types added before. payments_daily_mv
-- still writes a row (of zeros) for such a payment: the report lists an ad set, creative or keyword
-- that has a campaign_daily row in the window, so one with only a withdrawal stays listed, with the
-- withdrawal in its payment_events, as before.
-- The corrections:
-- - campaign_daily: minus campaign_payment_daily's count and total of the four types, per key (the
--   same key, source and status filter as payments_daily_mv, so it takes back exactly what was
--   added, a deleted user's payments included). The insert flows on into campaign_platform_daily
--   and campaign_platform_monthly through their views, and v_campaign_daily reads campaign_daily.
-- - revenue_cohort: minus the raw payments of the four types, per cohort key (no aggregate keeps
--   the type by install day). A user deleted before this migration keeps their part there (their
--   raw rows are gone; README "For data engineers" says so).
-- A correction cannot tell what it already took back, so each insert has a fixed dedup token (as
-- 0016's backfill): running the file again within the tables' dedup window adds nothing. Run it
-- with the fact writers stopped (embedded mode always does: migrations run first): a payment of
-- these types written between a view's swap and its correction would be taken back twice.

ALTER TABLE payments_daily_mv MODIFY QUERY
SELECT project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id,
  anyLastIf(ad_set_name, ad_set_name != '') AS ad_set_name,
  anyLastIf(creative_name, creative_name != '') AS creative_name,
  anyLastIf(keyword_name, keyword_name != '') AS keyword_name,
  toUInt64(sumIf(toInt64(sign), type NOT IN ('FUNDS_WITHDRAWAL', 'SUBSCRIPTION_CANCELLED', 'SUBSCRIPTION_REFUNDED', 'SUBSCRIPTION_BILLING_ISSUE'))) AS revenue_events,
  sumIf(amount * sign, type NOT IN ('FUNDS_WITHDRAWAL', 'SUBSCRIPTION_CANCELLED', 'SUBSCRIPTION_REFUNDED', 'SUBSCRIPTION_BILLING_ISSUE')) AS revenue
FROM payments
WHERE status = 'PAYMENT_COMPLETED'
GROUP BY project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id;

ALTER TABLE payments_revenue_cohort_mv MODIFY QUERY
SELECT project_id, campaign_id, platform, ad_set_id, creative_id, keyword_id, install_day,
  toUInt16(dateDiff('day', install_day, day)) AS day_n,
  sum(amount * sign) AS revenue
FROM payments
WHERE status = 'PAYMENT_COMPLETED'
  AND type NOT IN ('FUNDS_WITHDRAWAL', 'SUBSCRIPTION_CANCELLED', 'SUBSCRIPTION_REFUNDED', 'SUBSCRIPTION_BILLING_ISSUE')
  AND dateDiff('day', install_day, day) BETWEEN 0 AND 30
GROUP BY project_id, campaign_id, platform, ad_set_id, creative_id, keyword_id, install_day, day_n;

-- revenue_events is unsigned: -n is written as 2^64-n, and sum() wraps back (as a removal does).
-- The correction row carries its key's names: they are anyLast columns, so a row with '' merged
-- last would blank the ad set, creative and keyword names of every corrected key.
INSERT INTO campaign_daily (project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id,
  ad_set_name, creative_name, keyword_name, revenue_events, revenue)
SETTINGS insert_deduplication_token = 'migration-0031-campaign_daily', deduplicate_blocks_in_dependent_materialized_views = 1
SELECT c.project_id, c.campaign_id, c.day, c.platform, c.ad_set_id, c.creative_id, c.keyword_id,
  n.ad_set_name, n.creative_name, n.keyword_name, c.revenue_events, c.revenue
FROM (
  SELECT project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id,
    toUInt64(-sum(count)) AS revenue_events, -sum(total) AS revenue
  FROM campaign_payment_daily
  WHERE type IN ('FUNDS_WITHDRAWAL', 'SUBSCRIPTION_CANCELLED', 'SUBSCRIPTION_REFUNDED', 'SUBSCRIPTION_BILLING_ISSUE')
  GROUP BY project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id
  HAVING sum(count) != 0 OR sum(total) != 0
) AS c
LEFT JOIN (
  SELECT project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id,
    anyLastIf(ad_set_name, ad_set_name != '') AS ad_set_name,
    anyLastIf(creative_name, creative_name != '') AS creative_name,
    anyLastIf(keyword_name, keyword_name != '') AS keyword_name
  FROM campaign_daily
  WHERE (project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id) IN (
    SELECT project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id FROM campaign_payment_daily
    WHERE type IN ('FUNDS_WITHDRAWAL', 'SUBSCRIPTION_CANCELLED', 'SUBSCRIPTION_REFUNDED', 'SUBSCRIPTION_BILLING_ISSUE'))
  GROUP BY project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id
) AS n USING (project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id);

INSERT INTO revenue_cohort (project_id, campaign_id, platform, ad_set_id, creative_id, keyword_id, install_day, day_n, revenue)
SETTINGS insert_deduplication_token = 'migration-0031-revenue_cohort'
SELECT project_id, campaign_id, platform, ad_set_id, creative_id, keyword_id, install_day,
  toUInt16(dateDiff('day', install_day, day)) AS day_n,
  -sum(amount * sign)
FROM payments
WHERE status = 'PAYMENT_COMPLETED'
  AND type IN ('FUNDS_WITHDRAWAL', 'SUBSCRIPTION_CANCELLED', 'SUBSCRIPTION_REFUNDED', 'SUBSCRIPTION_BILLING_ISSUE')
  AND dateDiff('day', install_day, day) BETWEEN 0 AND 30
GROUP BY project_id, campaign_id, platform, ad_set_id, creative_id, keyword_id, install_day, day_n
HAVING sum(amount * sign) != 0;

ALTER TABLE campaign_daily
  COMMENT COLUMN revenue_events 'events with an amount + completed payments net of removals, FUNDS_WITHDRAWAL and SUBSCRIPTION_CANCELLED/REFUNDED/BILLING_ISSUE left out (a removal block adds -1 as 2^64-1: sum() wraps back)';

ALTER TABLE campaign_daily
  COMMENT COLUMN revenue 'event amounts + completed payment amounts * sign, FUNDS_WITHDRAWAL and SUBSCRIPTION_CANCELLED/REFUNDED/BILLING_ISSUE left out, project currency';

ALTER TABLE campaign_platform_daily
  COMMENT COLUMN revenue_events 'events with an amount + completed payments net of removals, FUNDS_WITHDRAWAL and SUBSCRIPTION_CANCELLED/REFUNDED/BILLING_ISSUE left out (wraps like campaign_daily: read with sum())';

ALTER TABLE campaign_platform_daily
  COMMENT COLUMN revenue 'event amounts + completed payment amounts * sign, FUNDS_WITHDRAWAL and SUBSCRIPTION_CANCELLED/REFUNDED/BILLING_ISSUE left out, project currency';

ALTER TABLE campaign_platform_monthly
  COMMENT COLUMN revenue_events 'events with an amount + completed payments net of removals, FUNDS_WITHDRAWAL and SUBSCRIPTION_CANCELLED/REFUNDED/BILLING_ISSUE left out (wraps like campaign_daily: read with sum())';

ALTER TABLE campaign_platform_monthly
  COMMENT COLUMN revenue 'event amounts + completed payment amounts * sign, FUNDS_WITHDRAWAL and SUBSCRIPTION_CANCELLED/REFUNDED/BILLING_ISSUE left out, project currency';

ALTER TABLE revenue_cohort
  COMMENT COLUMN revenue 'event amounts + completed payment amounts * sign on day_n, FUNDS_WITHDRAWAL and SUBSCRIPTION_CANCELLED/REFUNDED/BILLING_ISSUE left out, project currency';

ALTER TABLE campaign_payment_daily
  COMMENT COLUMN count 'completed payments net of removals (sum of sign), every type (withdrawals and refunds too: they are not revenue)';

ALTER TABLE v_campaign_daily
  COMMENT COLUMN revenue_events 'events with an amount + completed payments net of removals, FUNDS_WITHDRAWAL and SUBSCRIPTION_CANCELLED/REFUNDED/BILLING_ISSUE left out';

ALTER TABLE v_campaign_daily
  COMMENT COLUMN revenue 'event amounts + completed payments net of removals, FUNDS_WITHDRAWAL and SUBSCRIPTION_CANCELLED/REFUNDED/BILLING_ISSUE left out, project currency';
