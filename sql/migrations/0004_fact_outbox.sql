-- Fact outbox: every fact (click, install, attribution, …) is written here first, in the same
-- transaction as the state change that decided it, so a 2xx means the fact is durable. A writer
-- claims batches (batch_id), inserts them into ClickHouse with a dedup token derived from the
-- batch id, then deletes them: a crash between the two re-inserts the same batch, which
-- ClickHouse drops as a duplicate block.
CREATE TABLE fact_outbox (
  seq bigserial PRIMARY KEY,
  fact_table text NOT NULL,            -- ClickHouse table the row goes to
  fact_id text NOT NULL,               -- stable id of the fact (also a column of the row)
  project_id uuid NOT NULL,
  row jsonb NOT NULL,                  -- the ClickHouse row, snake_case, as JSONEachRow
  created_at timestamptz NOT NULL DEFAULT now(),
  batch_id bigint,                     -- set when a writer claims the row
  claimed_at timestamptz
);
CREATE INDEX fact_outbox_pending ON fact_outbox (fact_table, seq) WHERE batch_id IS NULL;
CREATE INDEX fact_outbox_claimed ON fact_outbox (batch_id) WHERE batch_id IS NOT NULL;
CREATE SEQUENCE fact_batch_seq;

-- Facts ClickHouse refused: kept with the reason until an operator replays them.
CREATE TABLE fact_dead_letters (
  id bigserial PRIMARY KEY,
  fact_table text NOT NULL,
  fact_id text NOT NULL,
  project_id uuid NOT NULL,
  row jsonb NOT NULL,
  reason text NOT NULL,
  failed_at timestamptz NOT NULL DEFAULT now(),
  replayed_at timestamptz
);
CREATE INDEX fact_dead_letters_pending ON fact_dead_letters (failed_at) WHERE replayed_at IS NULL;
