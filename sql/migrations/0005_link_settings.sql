-- Link settings: the deep-link verification files a project's link domains serve, pasted by an
-- operator (CLI `projects set-well-known`), and an index for links opened on the service's own
-- host, where the display id is looked up across projects.
ALTER TABLE projects
  ADD COLUMN apple_app_site_association jsonb,   -- served at /.well-known/apple-app-site-association (a JSON object)
  ADD COLUMN assetlinks jsonb;                   -- served at /.well-known/assetlinks.json (a JSON array)

CREATE INDEX campaigns_display_id_live ON campaigns (display_id) WHERE deleted_at IS NULL;
