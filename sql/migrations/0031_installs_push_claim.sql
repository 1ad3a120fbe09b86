-- Uninstall tracking: an install taken by a running pass for today's push. `uninstalls run` beside
-- the worker's daily pass read the same targets before either recorded a result, so each token got
-- two silent pushes that day. A pass now claims a page's targets (one UPDATE per page) before it
-- sends them; the claim lapses on its own (the pass sets it 10 minutes ahead, Postgres clock), so
-- the page of a pass that died mid-send is pushed by a later pass of the same day. Recording a
-- result (or an error) clears it. No index: it is read only on rows the pass's keyset scan reads.
-- Adding a nullable column without a default rewrites no rows.
ALTER TABLE installs ADD COLUMN push_claimed_until timestamptz;
