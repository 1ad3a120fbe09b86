-- A user deletion under way (domain/users/delete-user.ts). The Postgres step forgets the user's
-- installs, and with them the advertising ids that name the device's other clicks in ClickHouse;
-- when a later step fails (ClickHouse away), a re-run reads them here. The row is written in the
-- Postgres step's transaction and removed once ClickHouse holds nothing of the user.
CREATE TABLE user_deletions (
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  user_id text NOT NULL,
  install_ids text[] NOT NULL,
  ad_ids text[] NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, user_id)
);
