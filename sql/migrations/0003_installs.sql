-- Install identity: one row per (project, install_instance_id), the campaign it is attributed to
-- and the caller's user id once trigger ties them. Later migrations add device and attribution columns.
CREATE TABLE installs (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  install_instance_id text NOT NULL,
  platform text NOT NULL DEFAULT '',
  campaign_id integer REFERENCES campaigns (id) ON DELETE SET NULL,
  user_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  attributed_at timestamptz,
  PRIMARY KEY (project_id, install_instance_id)
);
CREATE INDEX installs_campaign_user ON installs (campaign_id, user_id) WHERE campaign_id IS NOT NULL;
