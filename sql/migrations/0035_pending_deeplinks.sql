-- Campaign links that handle-deeplink reported for an install whose init is not stored yet. The
-- iOS SDK's initialize() never sends `link`, and at a cold start its handleDeeplink can reach the
-- service first (real-clients §4.1, §4.10); dropped, the campaign link never decided the install.
-- The install's init takes its row (domain/identity/register-install.ts) and uses the link as the
-- init link. A row older than an hour is ignored; later handle-deeplink calls delete old rows a
-- hundred at a time (the created_at index), so the table holds about an hour of such links.
CREATE TABLE pending_deeplinks (
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  install_instance_id text NOT NULL,
  link text NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (project_id, install_instance_id)
);
CREATE INDEX pending_deeplinks_created_at ON pending_deeplinks (created_at);
