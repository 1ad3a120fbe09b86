-- RevenueCat refunds (README "RevenueCat webhook"), one row per refund event, so that a refund is
-- applied to its payment whatever order the webhooks arrive in: RevenueCat does not order them, and
-- a refund that arrives before its purchase waits here (pending) until the purchase is stored. A
-- refund names the refunded payment by its payment_id (the store's transaction_id). applied_amount
-- is what it took off the payment (all of it, or the refunded part of a partial refund), so that a
-- REFUND_REVERSED gives back exactly that. A user's deletion (GDPR) deletes the refunds of the
-- user's payments and those naming the user (user_id), pending ones included.
CREATE TABLE revenuecat_refunds (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  event_id text NOT NULL,                          -- RevenueCat's event id (a retry repeats it)
  payment_id text NOT NULL,                        -- the refunded payment's payment_id: the event's transaction_id
  user_id text,                                    -- the registered user the event named; NULL when none was
  amount numeric(38, 9) CHECK (amount > 0),        -- refunded, in the project currency; NULL: the whole payment
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'applied', 'reversed')),
  applied_amount numeric(38, 9),                   -- taken off the payment when applied (0: it was already removed)
  removed_payment boolean NOT NULL DEFAULT false,  -- the refund removed the payment (else it lowered its amount)
  received_at timestamptz NOT NULL,
  settled_at timestamptz,                          -- when it was applied, then when it was reversed
  PRIMARY KEY (project_id, event_id)
);
CREATE INDEX revenuecat_refunds_payment ON revenuecat_refunds (project_id, payment_id) WHERE state <> 'reversed';
CREATE INDEX revenuecat_refunds_user ON revenuecat_refunds (project_id, user_id) WHERE user_id IS NOT NULL;
