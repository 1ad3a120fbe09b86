-- Facts that wait for their install's attribution (domain/facts/enrich-facts.ts) used to be given
-- back to the outbox as they were: every writer tick claimed them again (an UPDATE and a jsonb parse
-- per row), found them still waiting and gave them back, and while more of them than a batch held
-- the head of the queue, the ready rows behind them were never claimed. A given-back row now
-- rests until not_before (a backoff growing with its age), and the claim skips it until then; the
-- attribution decision clears not_before for its install's rows, so they go out on the next tick.
ALTER TABLE fact_outbox ADD COLUMN not_before timestamptz;   -- resting given-back row: not claimed before this
CREATE INDEX fact_outbox_resting ON fact_outbox (project_id, enrich_install) WHERE not_before IS NOT NULL;
