-- Analytics integrations, one more vendor (product notes, "Integrations list"): CleverTap, through
-- its Upload User Profiles API. A CleverTap connection names its account (the Project ID sent as
-- X-CleverTap-Account-Id, not a secret: shown back) in account_id beside its sealed passcode.
ALTER TABLE analytics_connections DROP CONSTRAINT analytics_connections_vendor_check;
ALTER TABLE analytics_connections
  ADD CONSTRAINT analytics_connections_vendor_check
  CHECK (vendor IN ('braze', 'mixpanel', 'amplitude', 'posthog', 'ga4', 'clevertap'));
