-- Campaigns and their store listings. display_id stays unique per project even after a delete
-- (deleted_at), so facts that carry an old display_id never point at a new campaign.
CREATE TABLE campaigns (
  id serial PRIMARY KEY,                          -- the spec's numeric campaign id
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  display_id text NOT NULL,
  name text NOT NULL,
  deeplink text,
  link_for_desktop_users text,
  android_web_redirect text,
  ios_web_redirect text,
  website text,                                   -- null for short-link campaigns (spec)
  is_shortlink boolean NOT NULL DEFAULT false,
  domain_id integer REFERENCES domains (id) ON DELETE SET NULL,
  active boolean NOT NULL DEFAULT true,
  default_link boolean NOT NULL DEFAULT false,
  network text,                                   -- ad network or affiliate code (upper case, '_' for spaces)
  network_account_id integer REFERENCES network_accounts (id) ON DELETE SET NULL,
  google boolean NOT NULL DEFAULT false,
  google_web_to_app boolean NOT NULL DEFAULT false,
  meta boolean NOT NULL DEFAULT false,
  meta_campaign_id text,
  meta_web_to_app boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  CONSTRAINT campaigns_display_id_unique UNIQUE (project_id, display_id)
);
CREATE INDEX campaigns_project_live ON campaigns (project_id, created_at DESC) WHERE deleted_at IS NULL;

CREATE TABLE campaign_store_listings (
  campaign_id integer NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
  store_listing_id text NOT NULL REFERENCES store_listings (id) ON DELETE CASCADE,
  platform text NOT NULL CHECK (platform IN ('IOS', 'ANDROID')),
  PRIMARY KEY (campaign_id, store_listing_id),
  CONSTRAINT campaign_one_listing_per_platform UNIQUE (campaign_id, platform)
);
