-- Projects (tenants) and what belongs to them directly: server keys (stored only as SHA-256),
-- link domains, store listings and ad-network accounts.
CREATE TABLE projects (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL,
  timezone text NOT NULL DEFAULT 'UTC',          -- IANA zone; report days are local to it
  display_currency text NOT NULL DEFAULT 'USD',  -- ISO 4217; money in reports is shown in it
  token text NOT NULL UNIQUE,                     -- project token: public, ships inside apps
  website text,                                   -- last-resort redirect target for links
  billing_suspended boolean NOT NULL DEFAULT false,
  payment_link text,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE server_keys (
  id serial PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  key_hash bytea NOT NULL UNIQUE,                 -- sha256(key); the key itself is never stored
  key_prefix text NOT NULL,                       -- first characters, to tell keys apart in listings
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX server_keys_project ON server_keys (project_id);

CREATE TABLE domains (
  id serial PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name text NOT NULL UNIQUE,                      -- lower-case host; links resolve their project by it
  is_primary boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX domains_one_primary ON domains (project_id) WHERE is_primary;

CREATE TABLE store_listings (
  id text PRIMARY KEY,                            -- public store_listing_id
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name text NOT NULL,
  platform text NOT NULL CHECK (platform IN ('IOS', 'ANDROID')),
  store_url text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX store_listings_project ON store_listings (project_id);

CREATE TABLE network_accounts (
  id serial PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  network text NOT NULL,                          -- ad network code, upper case: META, GOOGLE, TIKTOK, ...
  name text NOT NULL,
  email text NOT NULL DEFAULT '',
  status text NOT NULL DEFAULT 'ACTIVE',
  account_name text,
  external_customer_id text,
  capi_configured boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX network_accounts_project ON network_accounts (project_id);
