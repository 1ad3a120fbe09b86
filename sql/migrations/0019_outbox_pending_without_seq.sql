-- fact_outbox_pending (fact_table, created_at, seq) also matched a lookup by seq alone: Postgres 18
-- can skip over an index's leading columns, and other versions scan the whole index. When the
-- statistics counted no rows (autovacuum's ANALYZE just after a drain), reading and deleting a batch
-- probed this index for each claimed seq instead of the primary key: 1.3 ms a row, 13 s to read a
-- 10,000-row batch, in the third `redirects` run of `npm run bench -- pushes redirects --reps 3`
-- (Postgres at 0.91 cores for 776 redirects/s). The claim needs only the created_at order, so seq
-- leaves the index and every lookup by seq has the primary key alone.
DROP INDEX fact_outbox_pending;
CREATE INDEX fact_outbox_pending ON fact_outbox (fact_table, created_at);
