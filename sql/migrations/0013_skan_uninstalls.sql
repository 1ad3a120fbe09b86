-- SKAdNetwork conversion values and uninstall tracking (product-notes: SKAdNetwork, Uninstall tracking).
-- skan_schemas: the project's conversion schema as versioned rows; the current one is the highest
-- version (an edit is a new version, so a past evaluation can name the schema that produced it).
CREATE TABLE skan_schemas (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  version integer NOT NULL CHECK (version >= 1),
  schema jsonb NOT NULL,                              -- validated by src/domain/skan/schema.ts
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, version)
);

-- The install's current values as last answered to the app. skan_fine is only ever raised.
ALTER TABLE installs
  ADD COLUMN skan_fine integer CHECK (skan_fine BETWEEN 0 AND 63),   -- NULL until a schema evaluated
  ADD COLUMN skan_coarse text CHECK (skan_coarse IN ('low', 'medium', 'high')),
  ADD COLUMN skan_locked boolean NOT NULL DEFAULT false,             -- lock_postback of skan_window
  ADD COLUMN skan_window smallint CHECK (skan_window BETWEEN 0 AND 2),
  ADD COLUMN skan_updated_at timestamptz,
  -- Uninstall tracking: one silent push a day to installs with a push token.
  ADD COLUMN push_failures integer NOT NULL DEFAULT 0,               -- consecutive failed days
  ADD COLUMN last_push_at timestamptz,
  ADD COLUMN last_push_day date,                                     -- UTC day of the last counted push
  ADD COLUMN uninstalled_at timestamptz;                             -- set on the 3rd failed day

-- Keyset pagination of the daily pass: installs with a token, in (project, install id) order.
CREATE INDEX installs_push_token ON installs (project_id, install_instance_id) WHERE push_token IS NOT NULL;

-- Per-install activity within each SKAN window (0: days 0-2, 1: 3-7, 2: 8-35), updated in the same
-- transaction as the sign-up / event / payment, so the request path never reads ClickHouse.
-- kind: 'signup' (name ''), 'event' (name = event_name), 'revenue' (name '').
CREATE TABLE skan_activity (
  project_id uuid NOT NULL,
  install_instance_id text NOT NULL,
  window_index smallint NOT NULL CHECK (window_index BETWEEN 0 AND 2),
  kind text NOT NULL CHECK (kind IN ('signup', 'event', 'revenue')),
  name text NOT NULL DEFAULT '',
  count bigint NOT NULL DEFAULT 0,
  amount numeric(38, 9) NOT NULL DEFAULT 0,
  PRIMARY KEY (project_id, install_instance_id, window_index, kind, name),
  FOREIGN KEY (project_id, install_instance_id) REFERENCES installs (project_id, install_instance_id) ON DELETE CASCADE
);

-- FCM (service-account JSON) and APNs (key id, team id, bundle id, .p8 key) credentials, encrypted
-- at rest with src/lib/secrets.ts; never logged.
CREATE TABLE push_credentials (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  provider text NOT NULL CHECK (provider IN ('FCM', 'APNS')),
  credentials_enc text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, provider)
);
