-- A delivery is unique per (project, destination) by md5(event_key), not by the key itself. A key
-- carries caller text (a Purchase's is `Purchase:<event_data.order_id>`, and event_data strings run
-- to 4,096 characters), while a btree entry holds at most 2,704 bytes: a longer key failed the
-- insert, and with it the transaction of the payment that queued it (500, and the same on every
-- retry, so the payment was never stored). md5 is 32 characters whatever the key (as in 0021). Two
-- different keys sharing an md5 would count as one delivery: no accident makes one, and a caller who
-- crafts one merges only its own project's events (it can send any order_id anyway).
-- Building the index holds inserts into deliveries (and so the facts that queue them) until it ends.
CREATE UNIQUE INDEX deliveries_event_key_md5 ON deliveries (project_id, destination, md5(event_key));
ALTER TABLE deliveries DROP CONSTRAINT deliveries_project_id_destination_event_key_key;
