-- Referral codes (product notes "Referral codes"): the query parameters of the campaign link that
-- won the install (its click's, or the init link's when the link itself decided), encoded as
-- name=value&…, set by the attribution decision with the ad set and creative. attribution-data and
-- get-attribution-result return them inside the campaign deeplink. '' when none, and for installs
-- decided before this migration.
ALTER TABLE installs ADD COLUMN link_params text NOT NULL DEFAULT '';
