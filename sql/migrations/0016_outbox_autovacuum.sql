-- The fact outbox is a queue: every row is inserted, updated once when a writer claims it, and
-- deleted once ClickHouse holds it, thousands of times a second under load. With the default
-- autovacuum settings (a vacuum after 20 % of the table changed, throttled) its dead row versions
-- piled up at the head of the pending index, and each claim walked through them: in the third
-- 10-second run of `npm run bench -- redirects` a claim took ~214 ms, Postgres used 0.9 cores and
-- redirects fell from ~7k to 0.9k/s. Vacuum it after a fixed number of changes, unthrottled.
ALTER TABLE fact_outbox SET (
  autovacuum_vacuum_scale_factor = 0,
  autovacuum_vacuum_threshold = 5000,
  autovacuum_vacuum_insert_scale_factor = 0,
  autovacuum_vacuum_insert_threshold = 5000,
  autovacuum_analyze_scale_factor = 0,
  autovacuum_analyze_threshold = 5000,
  autovacuum_vacuum_cost_delay = 0
);
