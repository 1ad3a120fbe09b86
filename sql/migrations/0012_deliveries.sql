-- Outgoing deliveries (issue 4): the Meta Conversions API connection and event mapping of a
-- project, its webhooks, an optional product catalog, and the delivery outbox. A delivery row is
-- written in the same transaction as the fact that triggers it, so a fact is never sent without
-- being stored, nor stored without being queued. Rows hold hashed PII only for Meta; webhook
-- payloads carry the user's fields as the product notes list them (Postgres already holds them).
CREATE TABLE network_connections (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  network text NOT NULL CHECK (network IN ('META')),
  dataset_id text NOT NULL,                      -- Meta dataset (pixel) id
  access_token_enc text NOT NULL,                -- lib/secrets.ts, bound to (project, network)
  graph_version text,                            -- NULL: META_GRAPH_VERSION from config
  active boolean NOT NULL DEFAULT false,
  activated_at timestamptz,                      -- facts recorded before this are never sent
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, network)
);

-- The project's own event names and payment types mapped to Meta standard events (spec:
-- "Commerce events forwarded to the ad-network dataset").
CREATE TABLE event_mappings (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  source_kind text NOT NULL CHECK (source_kind IN ('event', 'payment')),
  source_name text NOT NULL,
  standard_event text NOT NULL CHECK (standard_event IN ('AddToCart', 'ViewContent', 'Purchase')),
  PRIMARY KEY (project_id, source_kind, source_name)
);

CREATE TABLE webhooks (
  id bigserial PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  url text NOT NULL,
  secret_enc text NOT NULL,                      -- HMAC-SHA256 signing secret (lib/secrets.ts)
  events text[] NOT NULL DEFAULT '{install,signup}',
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project_id, url)
);

-- Uploaded catalog product ids, for the match-rate figure (spec recommends >= 90 %).
CREATE TABLE catalog_products (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  product_id text NOT NULL,
  PRIMARY KEY (project_id, product_id)
);

-- The delivery outbox. destination is 'meta' or 'webhook:<id>'. event_key makes a delivery unique
-- per destination (Purchase: its payment id), so a retried fact queues one delivery.
CREATE TABLE deliveries (
  id bigserial PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  destination text NOT NULL,
  event_key text NOT NULL,
  user_id text,                                  -- whose data the payload holds (user deletion)
  install_instance_id text,
  event_time timestamptz NOT NULL,
  payload jsonb NOT NULL,
  product_ids text[] NOT NULL DEFAULT '{}',      -- forwarded content ids (catalog match rate)
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'invalid', 'stale', 'dead')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  lease_until timestamptz,                       -- a claimed row; a stalled worker's lease expires
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  UNIQUE (project_id, destination, event_key)
);
CREATE INDEX deliveries_due ON deliveries (project_id, destination, next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_dead ON deliveries (project_id, destination) WHERE status IN ('dead', 'invalid');
CREATE INDEX deliveries_user ON deliveries (project_id, user_id);
CREATE INDEX deliveries_install ON deliveries (project_id, install_instance_id);
