-- A spend row is unique per (project, day, campaign, network) and the md5 of each of its ad set,
-- creative and keyword ids, not the ids themselves. Each id runs to 256 characters, which is up
-- to 1,024 bytes, while a btree entry holds at most 2,704: three long ids of four-byte characters
-- failed the upsert, and the whole request with it (500). md5 is 32 characters whatever the id (as
-- in 0021 and 0027); two ids sharing an md5 would be one key, which no accident makes and a
-- caller who crafts one merges only its own project's rows. The ids themselves are kept whole.
-- Building the index holds spend writes until it ends (the table holds one row per day and key).
CREATE UNIQUE INDEX spend_rows_key_digest ON spend_rows
  (project_id, day, campaign_id, md5(ad_set_id), md5(creative_id), md5(keyword_id), network);
ALTER TABLE spend_rows DROP CONSTRAINT spend_rows_key;
