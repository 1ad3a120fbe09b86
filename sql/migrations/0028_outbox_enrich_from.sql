-- A payment removal's outbox row names the capture it removes (its fact id, same table and
-- project), so the fact writer gives it the columns the capture was written with: it waits while
-- the capture is still in the outbox and then copies the capture's attribution from ClickHouse
-- (src/domain/facts/removal-columns.ts). Enriched from the install on its own, a refund made while
-- its capture waited for the install's attribution went out on the campaign decided meanwhile
-- while the capture had gone out organic: +10 organic, -10 on the campaign. Adding a column
-- without a default rewrites nothing; rows written before it have none and are enriched as before.
ALTER TABLE fact_outbox ADD COLUMN enrich_from text;
