-- Referral codes (product notes "Referral codes"): a campaign link's own query parameters (every one
-- the service does not read itself) are returned inside the campaign deeplink once the click wins
-- an install, so the click keeps them. One encoded query string, capped at 20 parameters and 1,000
-- characters (domain/links/read-click-params.ts readLinkParams); '' for older clicks and links
-- without any. The lookup tables (clicks_by_key, clicks_by_ip) don't copy it: install matching
-- reads it from `clicks` with the click's other details (store/clickhouse/clicks.ts). Re-runnable.
ALTER TABLE clicks
  ADD COLUMN IF NOT EXISTS link_params String DEFAULT '' COMMENT 'the other query parameters of the link (referral codes), encoded as name=value&…; empty when none' CODEC(ZSTD(3));
