-- Install identity and attribution state (spec: init, attribution-data, handle-deeplink,
-- get-attribution-result). One row per (project, install_instance_id); the attribution decision
-- is copied here so client answers need no ClickHouse read.
ALTER TABLE installs
  ADD COLUMN processing_id text NOT NULL DEFAULT '',
  ADD COLUMN gaid text,                           -- Android advertising id, lower-case
  ADD COLUMN idfa text,                           -- iOS advertising id, lower-case
  ADD COLUMN idfv text,                           -- iOS vendor id, lower-case
  ADD COLUMN android_id text,                     -- ANDROID_ID (device_data.device_id)
  ADD COLUMN ip text NOT NULL DEFAULT '',
  ADD COLUMN user_agent text NOT NULL DEFAULT '',
  ADD COLUMN os text NOT NULL DEFAULT '',
  ADD COLUMN os_version text NOT NULL DEFAULT '',
  ADD COLUMN device_model text NOT NULL DEFAULT '',
  ADD COLUMN app_version text NOT NULL DEFAULT '',
  ADD COLUMN package_version text NOT NULL DEFAULT '',
  ADD COLUMN device_data jsonb NOT NULL DEFAULT '{}',
  ADD COLUMN install_ref text NOT NULL DEFAULT '',         -- Play Install Referrer string
  ADD COLUMN install_begin_at timestamptz,                  -- Play: install began (for click injection)
  ADD COLUMN meta_install_ref jsonb,
  ADD COLUMN apple_ads_token text,
  ADD COLUMN init_link text,                               -- campaign link given on init or first deeplink
  ADD COLUMN last_seen_at timestamptz NOT NULL DEFAULT now(),
  ADD COLUMN open_count integer NOT NULL DEFAULT 1,
  ADD COLUMN attribution_status text NOT NULL DEFAULT 'pending' CHECK (attribution_status IN ('pending', 'decided')),
  ADD COLUMN decision_id text,
  ADD COLUMN attribution_method text,
  ADD COLUMN is_reinstall boolean NOT NULL DEFAULT false,
  ADD COLUMN suspicious boolean NOT NULL DEFAULT false,
  ADD COLUMN click_id text,
  ADD COLUMN store_click_at timestamptz,
  ADD COLUMN network text,
  ADD COLUMN ad_set_id text,
  ADD COLUMN ad_set_name text,
  ADD COLUMN creative_id text,
  ADD COLUMN creative_name text,
  ADD COLUMN keyword_id text,
  ADD COLUMN keyword_name text,
  ADD COLUMN reengaged_at timestamptz,                      -- last re-engagement (reattribution window)
  ADD COLUMN reengagement_campaign_id integer REFERENCES campaigns (id) ON DELETE SET NULL;

CREATE INDEX installs_gaid ON installs (project_id, gaid) WHERE gaid IS NOT NULL;
CREATE INDEX installs_idfa ON installs (project_id, idfa) WHERE idfa IS NOT NULL;
CREATE INDEX installs_idfv ON installs (project_id, idfv) WHERE idfv IS NOT NULL;
CREATE INDEX installs_android_id ON installs (project_id, android_id) WHERE android_id IS NOT NULL;
CREATE INDEX installs_user ON installs (project_id, user_id) WHERE user_id IS NOT NULL;
CREATE INDEX installs_pending ON installs (created_at) WHERE attribution_status = 'pending';

-- Per-project attribution settings (industry defaults when absent) and SDK signing enforcement.
ALTER TABLE projects
  ADD COLUMN attribution_settings jsonb NOT NULL DEFAULT '{}',
  ADD COLUMN enforce_sdk_signing boolean NOT NULL DEFAULT false;

-- SDK request-signing keys (real-clients §2): per project and platform. The secret is needed to
-- recompute the HMAC, so it is stored; it is not a server key and unlocks nothing on /api/v1.
CREATE TABLE sdk_signing_keys (
  key_id text PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  platform text NOT NULL CHECK (platform IN ('IOS', 'ANDROID')),
  secret text NOT NULL,
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sdk_signing_keys_project ON sdk_signing_keys (project_id);
