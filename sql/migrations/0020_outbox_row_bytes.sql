-- Each outbox row's size in bytes (its JSON text), written with the row, so a claim stops once its
-- rows add up to FLUSH_BATCH_BYTES (src/domain/facts/flush-facts.ts) instead of always taking
-- 10,000 rows. Client bodies may be 64 KiB: 10,000 events of ~60 KiB each made a 600 MB batch, and
-- its insert failed on every retry (the embedded engine's request body is one string, past V8's
-- largest), pausing every table's writer. Adding a column without a default rewrites nothing. Rows
-- written before it, or by a process of the previous version, have none and count as 0 bytes.
ALTER TABLE fact_outbox ADD COLUMN bytes integer;
