-- clicks_by_key held each click id twice: in match_key ('c:<click id>') and in click_id, which no
-- codec removes (the two columns compress apart): 29.1 -> 16.2 bytes per row on the fact-writer
-- bench's clicks (54.1 -> 50.2 bytes per fact with every view target). A 'c:' row now leaves
-- click_id empty and readers take the id from match_key (store/clickhouse/clicks.ts; GDPR deletion
-- matches either, store/clickhouse/user-data.ts); an 'a:<ad id>' row still carries its click id.
-- Rows written before keep theirs. MODIFY QUERY swaps the view's SELECT without a pause in
-- ingestion, and re-running it is harmless. The source column is named `clicks.click_id` because
-- the output column takes its name.
ALTER TABLE clicks_by_key_mv MODIFY QUERY
SELECT project_id, kv.1 AS match_key, ts, kv.2 AS click_id, campaign_id, platform
FROM clicks
ARRAY JOIN arrayFilter(
  k -> k.1 != '',
  [('c:' || clicks.click_id, ''), (if(ad_id = '', '', 'a:' || ad_id), clicks.click_id)]
) AS kv;

ALTER TABLE clicks_by_key
  COMMENT COLUMN click_id 'click id of an a: row; empty on a c: row since migration 0022 (the id is match_key after c:)';
