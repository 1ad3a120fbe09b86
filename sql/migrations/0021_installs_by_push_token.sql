-- One push token, one install per project. An iOS reinstall gets a new install_instance_id while
-- the APNs device token commonly stays the same, so two installs held one token: the device got two
-- silent pushes a day and one removal counted as two uninstalls. update-push-token now takes the
-- token from the project's other installs (store/postgres/installs.ts savePushToken), found through
-- this index. It holds md5(push_token), not the token: a token may be 4,096 characters and a btree
-- entry at most 2,704 bytes (the lookup also compares the token itself).
CREATE INDEX installs_by_push_token ON installs (project_id, md5(push_token)) WHERE push_token IS NOT NULL;

-- Tokens already shared: the install that stored it last keeps it (the newer install id on a tie).
UPDATE installs i SET push_token = NULL, push_failures = 0
WHERE i.push_token IS NOT NULL AND EXISTS (
  SELECT 1 FROM installs o
  WHERE o.project_id = i.project_id AND md5(o.push_token) = md5(i.push_token) AND o.push_token = i.push_token
    AND (COALESCE(o.push_token_updated_at, '-infinity'), o.install_instance_id)
      > (COALESCE(i.push_token_updated_at, '-infinity'), i.install_instance_id));
