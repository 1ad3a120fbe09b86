-- The attribution job asks, for a batch's candidate clicks, which already decided an install
-- (store/postgres/candidate-clicks.ts): a fingerprint match takes a click no other install holds,
-- so two phones of one model behind one carrier NAT are not both attributed to the one that
-- clicked. Without this index each lookup read every install of the project.
CREATE INDEX installs_click_id ON installs (project_id, click_id) WHERE click_id IS NOT NULL;
