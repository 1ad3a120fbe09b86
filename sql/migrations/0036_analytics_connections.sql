-- Analytics integrations (product notes, "Integrations list"): a project's connection to Braze,
-- Mixpanel, Amplitude or PostHog, to which each registered user's install attribution is sent as
-- user properties. The rows to send are ordinary deliveries (0012) with destination
-- 'analytics:<vendor>', written in the trigger's transaction, held while the install's attribution
-- is undecided (0022) and unique per (user, vendor id) by md5(event_key) (0027).
CREATE TABLE analytics_connections (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  vendor text NOT NULL CHECK (vendor IN ('braze', 'mixpanel', 'amplitude', 'posthog')),
  endpoint text NOT NULL,                        -- base URL: Braze REST endpoint, region host, PostHog host
  key_enc text NOT NULL,                         -- API key / project token (lib/secrets.ts, bound to project and vendor)
  key_fingerprint text NOT NULL,                 -- first 12 hex of the key's SHA-256, the only form shown back
  active boolean NOT NULL DEFAULT false,
  activated_at timestamptz,                      -- when it last turned active (shown back); null while inactive
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, vendor)
);
