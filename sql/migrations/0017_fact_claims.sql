-- A writer's claim no longer rewrites the outbox rows it takes. Setting batch_id/claimed_at on
-- 10,000 jsonb rows wrote a new version of each row and of its index entries (130–150 ms and
-- 14–39 MB of WAL per batch on an idle server, the fact writer's largest cost). A claim is now a
-- row per batch in fact_batches plus a narrow row per claimed fact in fact_claims (seq → batch),
-- taken with INSERT … ON CONFLICT DO NOTHING so two writers never hold the same fact; the outbox
-- row is only ever inserted, given a not_before when it is given back, and deleted with its claim.
CREATE TABLE fact_batches (
  id bigint PRIMARY KEY,               -- from fact_batch_seq; part of the batch's dedup token
  fact_table text NOT NULL,
  claimed_at timestamptz NOT NULL      -- a batch older than the stale age is retried by any writer
);
CREATE TABLE fact_claims (
  seq bigint PRIMARY KEY,              -- fact_outbox.seq of the claimed row
  batch_id bigint NOT NULL
);
CREATE INDEX fact_claims_batch ON fact_claims (batch_id);

-- Batches claimed before this migration keep their ids (and so their dedup tokens).
INSERT INTO fact_batches (id, fact_table, claimed_at)
  SELECT batch_id, min(fact_table), min(claimed_at) FROM fact_outbox WHERE batch_id IS NOT NULL GROUP BY batch_id;
INSERT INTO fact_claims (seq, batch_id) SELECT seq, batch_id FROM fact_outbox WHERE batch_id IS NOT NULL;

DROP INDEX fact_outbox_pending;
DROP INDEX fact_outbox_claimed;
ALTER TABLE fact_outbox DROP COLUMN batch_id, DROP COLUMN claimed_at;
-- The claim orders by created_at, seq: an order the primary key cannot give, so no plan walks the
-- whole outbox by seq and filters by table (see claimBatch in src/store/postgres/fact-outbox.ts).
CREATE INDEX fact_outbox_pending ON fact_outbox (fact_table, created_at, seq);

-- Both churn like the outbox (see 0016).
ALTER TABLE fact_claims SET (
  autovacuum_vacuum_scale_factor = 0,
  autovacuum_vacuum_threshold = 5000,
  autovacuum_vacuum_insert_scale_factor = 0,
  autovacuum_vacuum_insert_threshold = 5000,
  autovacuum_analyze_scale_factor = 0,
  autovacuum_analyze_threshold = 5000,
  autovacuum_vacuum_cost_delay = 0
);
ALTER TABLE fact_batches SET (
  autovacuum_vacuum_scale_factor = 0,
  autovacuum_vacuum_threshold = 1000,
  autovacuum_vacuum_cost_delay = 0
);
