-- Users tied to installs by trigger, event-id and payment-id dedupe (decided here, before any fact
-- is written), and the outbox's attribution enrichment. Spec: trigger, set-user-data,
-- capture-event (Rule 1, event_id idempotency), capture-payment (Rule 4), remove-captured-payment.
CREATE TABLE app_users (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  user_id text NOT NULL,                         -- the caller's own user id
  name text,
  email text,
  phone text,
  user_data jsonb NOT NULL DEFAULT '{}',         -- every other user_data field, passed back by attributed-users
  device_data jsonb NOT NULL DEFAULT '{}',       -- device_data of the trigger (data.device_data)
  install_instance_id text NOT NULL,             -- the install that registered the user (trigger)
  is_first_time_user boolean,
  user_created_at text,
  attributed_at timestamptz NOT NULL DEFAULT now(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, user_id)
);

-- capture-event's optional event_id: the first insert wins, repeats are ignored.
CREATE TABLE seen_event_ids (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  event_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, event_id)
);

-- Captured payments. A payment_id is unique per project (spec Rule 4); NULL (absent or "") never
-- collides, so payments without an id are never merged. Removal marks removed_at and writes a
-- correcting fact (sign -1); nothing is updated in ClickHouse.
CREATE TABLE payments (
  id bigserial PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  payment_id text,
  user_id text NOT NULL,
  install_instance_id text NOT NULL,
  type text NOT NULL,
  status text NOT NULL,
  amount numeric(38, 9) NOT NULL CHECK (amount >= 0),
  fact_id text NOT NULL,
  captured_at timestamptz NOT NULL DEFAULT now(),
  removed_at timestamptz,
  CONSTRAINT payments_payment_id_unique UNIQUE (project_id, payment_id)
);
CREATE INDEX payments_user ON payments (project_id, user_id) WHERE removed_at IS NULL;

-- Facts tied to an install get the install's attribution when the writer moves them: a fact
-- recorded while attribution is still pending waits (up to a bound) instead of being counted organic.
ALTER TABLE fact_outbox ADD COLUMN enrich_install text;
