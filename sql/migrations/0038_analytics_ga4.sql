-- Analytics integrations, one more vendor (product notes, "Integrations list"): Google Analytics 4
-- through its Measurement Protocol for apps. A GA4 connection names its Firebase app
-- (firebase_app_id, not a secret: shown back) beside its sealed api_secret, so connections get an
-- account_id column ('' for the vendors that have none).
ALTER TABLE analytics_connections DROP CONSTRAINT analytics_connections_vendor_check;
ALTER TABLE analytics_connections
  ADD CONSTRAINT analytics_connections_vendor_check CHECK (vendor IN ('braze', 'mixpanel', 'amplitude', 'posthog', 'ga4'));
ALTER TABLE analytics_connections ADD COLUMN account_id text NOT NULL DEFAULT ''; -- GA4: firebase_app_id
