-- The install's re-engagements before its last one (reengaged_at, reengagement_campaign_id) that
-- are still within the SDK's retry span of handle-deeplink (3 minutes): campaign id -> epoch ms.
-- README: the same campaign opened again within 3 minutes is an SDK retry and records nothing;
-- kept only for the last one, campaign A, then B, then the retry of A counted A twice. Rewritten,
-- pruned to that span, with each re-engagement under the install's row lock, so it holds a few
-- entries at most. Adding a column with a constant default rewrites no rows.
ALTER TABLE installs ADD COLUMN prior_reengagements jsonb NOT NULL DEFAULT '{}'::jsonb;
