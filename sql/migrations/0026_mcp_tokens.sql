-- Tokens of the read-only MCP server (product-notes "MCP": the token is in the URL, at most 10 per
-- project). Like server keys, a token is stored only as its SHA-256; the operator CLI prints it once.
-- The cap of 10 live tokens is checked by the CLI's domain verb under the project's row lock.
CREATE TABLE mcp_tokens (
  id serial PRIMARY KEY,                          -- what `mcp list-tokens` shows and `mcp revoke-token --id` takes
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name text NOT NULL DEFAULT '',                  -- the operator's label ('' when none was given)
  token_hash bytea NOT NULL UNIQUE,               -- sha256(token); the token itself is never stored
  token_prefix text NOT NULL,                     -- first characters, to tell tokens apart in listings
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,                       -- written at most once a minute per token
  revoked_at timestamptz
);
CREATE INDEX mcp_tokens_live ON mcp_tokens (project_id) WHERE revoked_at IS NULL;
