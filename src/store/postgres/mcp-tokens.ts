// MCP tokens (sql/migrations/0026): looked up by their SHA-256 only; nothing here selects the hash.
// Every query but the lookup by hash is scoped by project.
import type { Sql } from './pool.ts';
import { type Project, toProject } from './projects.ts';

export type McpToken = {
  id: number;
  projectId: string;
  name: string;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
};

type TokenRow = {
  id: number;
  project_id: string;
  name: string;
  token_prefix: string;
  created_at: Date;
  last_used_at: Date | null;
};

const toToken = (r: TokenRow): McpToken => ({
  id: r.id,
  projectId: r.project_id,
  name: r.name,
  prefix: r.token_prefix,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
});

export async function insertMcpToken(
  sql: Sql,
  t: { projectId: string; name: string; tokenHash: Buffer; prefix: string },
): Promise<McpToken> {
  const [row] = await sql<TokenRow[]>`
    INSERT INTO mcp_tokens (project_id, name, token_hash, token_prefix)
    VALUES (${t.projectId}, ${t.name}, ${t.tokenHash}, ${t.prefix})
    RETURNING id, project_id, name, token_prefix, created_at, last_used_at`;
  if (!row) {
    throw new Error('insert into mcp_tokens returned no row');
  }
  return toToken(row);
}

export async function countLiveMcpTokens(sql: Sql, projectId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM mcp_tokens WHERE project_id = ${projectId} AND revoked_at IS NULL`;
  return row?.n ?? 0;
}

/** The project's live tokens, oldest first. */
export async function listLiveMcpTokens(sql: Sql, projectId: string): Promise<McpToken[]> {
  const rows = await sql<TokenRow[]>`
    SELECT id, project_id, name, token_prefix, created_at, last_used_at FROM mcp_tokens
    WHERE project_id = ${projectId} AND revoked_at IS NULL ORDER BY id`;
  return rows.map(toToken);
}

/** Revokes the project's live token `id`; undefined when the project has no such live token. */
export async function revokeMcpToken(sql: Sql, projectId: string, id: number): Promise<McpToken | undefined> {
  const [row] = await sql<TokenRow[]>`
    UPDATE mcp_tokens SET revoked_at = now()
    WHERE project_id = ${projectId} AND id = ${id} AND revoked_at IS NULL
    RETURNING id, project_id, name, token_prefix, created_at, last_used_at`;
  return row ? toToken(row) : undefined;
}

type ProjectRow = Parameters<typeof toProject>[0];
type OwnerRow = ProjectRow & {
  t_id: number;
  t_name: string;
  t_prefix: string;
  t_created_at: Date;
  t_last_used_at: Date | null;
};

export type McpTokenOwner = { token: McpToken; project: Project };

/** The live token with this hash, with its project; revoked or unknown → undefined. */
export async function findProjectByMcpTokenHash(sql: Sql, tokenHash: Buffer): Promise<McpTokenOwner | undefined> {
  const [row] = await sql<OwnerRow[]>`
    SELECT p.*, t.id AS t_id, t.name AS t_name, t.token_prefix AS t_prefix, t.created_at AS t_created_at,
      t.last_used_at AS t_last_used_at
    FROM mcp_tokens t JOIN projects p ON p.id = t.project_id
    WHERE t.token_hash = ${tokenHash} AND t.revoked_at IS NULL`;
  if (!row) {
    return undefined;
  }
  const token = toToken({
    id: row.t_id,
    project_id: row.id,
    name: row.t_name,
    token_prefix: row.t_prefix,
    created_at: row.t_created_at,
    last_used_at: row.t_last_used_at,
  });
  return { token, project: toProject(row) };
}

/** Sets last_used_at to now unless it was set less than `minAgeSeconds` ago (a write a minute, not a call). */
export async function touchMcpToken(sql: Sql, id: number, minAgeSeconds: number): Promise<void> {
  await sql`UPDATE mcp_tokens SET last_used_at = now()
    WHERE id = ${id} AND (last_used_at IS NULL OR last_used_at < now() - make_interval(secs => ${minAgeSeconds}))`;
}
