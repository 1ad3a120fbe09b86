-- Push tokens (update-push-token, legacy updatePushToken; used for uninstall tracking) and
-- third-party integration ids (integrations, e.g. clevertap_id), kept on the install they came
-- from. The token is PII-like: it is stored here only, never in logs, jobs or facts.
ALTER TABLE installs
  ADD COLUMN push_token text,                                  -- APNs (64 hex) or FCM registration token, as sent
  ADD COLUMN push_token_updated_at timestamptz,                -- last update-push-token call that stored it
  ADD COLUMN integration_info jsonb NOT NULL DEFAULT '{}';     -- merged map of integration id name -> string value
