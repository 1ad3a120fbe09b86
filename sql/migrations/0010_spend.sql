-- Ad spend: the current value per day × campaign × ad set × creative × keyword × network, from the
-- spend endpoint, the CSV import, the sandbox_ads generator or (later) a network puller. A
-- restatement replaces the row; when it changes anything, the same transaction writes the old
-- values (sign -1) and the new ones (sign 1) to the fact outbox for ClickHouse `spend`, so sums
-- there always equal this table (domain/spend/upsert-spend.ts). An identical restatement writes
-- nothing. Absent ids are '' (never NULL), so they take part in the unique key.
CREATE TABLE spend_rows (
  id bigserial PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  day date NOT NULL,                               -- the spend day as the source gives it (project-local)
  campaign_id integer NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
  ad_set_id text NOT NULL DEFAULT '',
  ad_set_name text NOT NULL DEFAULT '',
  creative_id text NOT NULL DEFAULT '',
  creative_name text NOT NULL DEFAULT '',
  keyword_id text NOT NULL DEFAULT '',
  keyword_name text NOT NULL DEFAULT '',
  network text NOT NULL DEFAULT '',                -- network code, upper case with '_' for spaces
  amount numeric(38, 9) NOT NULL CHECK (amount >= 0),  -- in the project's currency
  impressions bigint NOT NULL DEFAULT 0 CHECK (impressions >= 0),
  clicks bigint NOT NULL DEFAULT 0 CHECK (clicks >= 0),  -- as reported by the network
  source text NOT NULL CHECK (source <> ''),       -- api, csv, sandbox_ads or a puller's network code (lower case)
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT spend_rows_key UNIQUE (project_id, day, campaign_id, ad_set_id, creative_id, keyword_id, network)
);
CREATE INDEX spend_rows_campaign ON spend_rows (campaign_id, day);
