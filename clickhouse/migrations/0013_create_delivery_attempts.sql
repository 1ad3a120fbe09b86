-- Delivery log (issue 4): one row per attempt of an outgoing delivery batch (Meta Conversions API,
-- webhooks), whatever its outcome. Written directly by the delivery job with the attempt id as the
-- insert dedup token; the state of each delivery lives in Postgres (deliveries).
CREATE TABLE IF NOT EXISTS delivery_attempts (
  attempt_id String COMMENT 'unique per attempt (dedup token)',
  project_id String COMMENT 'tenant',
  destination LowCardinality(String) COMMENT 'meta or webhook:<id>',
  ts DateTime64(3, 'UTC') COMMENT 'attempt start',
  outcome LowCardinality(String) COMMENT 'sent, retry, dead, invalid or stale',
  http_status UInt16 COMMENT 'HTTP status, 0 when none (timeout, network, not sent)',
  events UInt32 COMMENT 'deliveries in the attempt',
  delivery_ids Array(String) COMMENT 'deliveries.id of the attempt',
  latency_ms UInt32 COMMENT 'request time, 0 when not sent',
  response String COMMENT 'response summary or failure reason, capped at 500 characters'
) ENGINE = MergeTree
PARTITION BY toYYYYMM(ts)
ORDER BY (project_id, destination, ts)
SETTINGS non_replicated_deduplication_window = 1000;
