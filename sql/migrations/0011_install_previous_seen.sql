-- The install's activity before its latest open: a cold start with a campaign deeplink runs init
-- (which moves last_seen_at to now) just before handle-deeplink, so the re-engagement inactivity
-- window is measured against the open before that one.
ALTER TABLE installs ADD COLUMN previous_seen_at timestamptz;
