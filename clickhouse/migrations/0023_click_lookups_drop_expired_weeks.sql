-- clicks_by_key (kept 120 days) and clicks_by_ip (30 days) had one partition each, so their TTL
-- deleted expired clicks by rewriting the whole table: a TTL merge at every start of an embedded
-- process (the engine keeps no memory of the last one) and every merge_with_ttl_timeout (4 h) after.
-- Clicks arrive every second, so some row has always just expired and the rewrite always runs. On
-- the reporting bench's data (1.05 M + 0.26 M rows) it took ~1 s of CPU after each open; it grows
-- with the tables, while lookups and reports wait for the core. Each table is now partitioned by
-- week of click time and expires by dropping whole weeks (ttl_only_drop_parts): no rewrite, and a
-- click stays up to a week past its TTL. Lookups bound their own windows (store/clickhouse/clicks.ts;
-- the longest is the 90-day click lookback), so that changes no match. Like 0019, each table is
-- copied into a new one (its unexpired rows), swapped with it (EXCHANGE TABLES: the name and the
-- view writing into it stay) and the old one dropped; each table's steps re-run from the start
-- after a crash. Run with the fact writers stopped (embedded mode always is: migrations run first);
-- clicks written during a table's copy would be missing from that lookup table.

DROP TABLE IF EXISTS clicks_by_key_rebuild;

CREATE TABLE clicks_by_key_rebuild AS clicks_by_key ENGINE = MergeTree
PARTITION BY toMonday(ts)
ORDER BY (project_id, match_key, ts)
TTL toDateTime(ts) + INTERVAL 120 DAY
SETTINGS non_replicated_deduplication_window = 1000, ttl_only_drop_parts = 1;

INSERT INTO clicks_by_key_rebuild SETTINGS insert_deduplication_token = 'migration-0023-clicks_by_key'
SELECT * FROM clicks_by_key WHERE toDateTime(ts) + INTERVAL 120 DAY > now();

EXCHANGE TABLES clicks_by_key AND clicks_by_key_rebuild;

DROP TABLE clicks_by_key_rebuild;

DROP TABLE IF EXISTS clicks_by_ip_rebuild;

CREATE TABLE clicks_by_ip_rebuild AS clicks_by_ip ENGINE = MergeTree
PARTITION BY toMonday(ts)
ORDER BY (project_id, ip, ts)
TTL toDateTime(ts) + INTERVAL 30 DAY
SETTINGS non_replicated_deduplication_window = 1000, ttl_only_drop_parts = 1;

INSERT INTO clicks_by_ip_rebuild SETTINGS insert_deduplication_token = 'migration-0023-clicks_by_ip'
SELECT * FROM clicks_by_ip WHERE toDateTime(ts) + INTERVAL 30 DAY > now();

EXCHANGE TABLES clicks_by_ip AND clicks_by_ip_rebuild;

DROP TABLE clicks_by_ip_rebuild;
