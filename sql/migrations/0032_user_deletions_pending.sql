-- A user deletion under way (0023) also keeps what its ClickHouse step needs after the Postgres
-- step deleted it: the outbox rows it deleted (a fact writer may have read them into a batch whose
-- insert is still landing; domain/users/delete-user.ts waits for those batches, and a re-run waits
-- again while one is still claimed), and the user's deliveries (their attempts are logged in
-- ClickHouse delivery_attempts, the receiver's answer included).
ALTER TABLE user_deletions
  ADD COLUMN fact_seqs bigint[] NOT NULL DEFAULT '{}',    -- fact_outbox.seq of the user's deleted rows
  ADD COLUMN delivery_ids text[] NOT NULL DEFAULT '{}';   -- deliveries.id of the user's deleted rows
