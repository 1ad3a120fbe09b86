// Revokes one MCP token of a project: its URL answers 401 from the next request on (the route looks
// the token up on every request; nothing caches it).
import type { PgDeps } from '../../deps.ts';
import { type McpToken, revokeMcpToken as revokeRow } from '../../store/postgres/mcp-tokens.ts';
import { InputError } from '../projects/input-error.ts';
import { requireProject } from '../projects/require-project.ts';

export async function revokeMcpToken(deps: Pick<PgDeps, 'sql'>, projectId: string, rawId: string): Promise<McpToken> {
  await requireProject(deps, projectId);
  const id = rawId.trim();
  if (!/^[1-9]\d{0,9}$/.test(id) || Number(id) > 2_147_483_647) {
    throw new InputError(`--id '${rawId}' must be a token id from mcp list-tokens (a positive integer)`);
  }
  const revoked = await revokeRow(deps.sql, projectId, Number(id));
  if (!revoked) {
    throw new InputError(
      `MCP token ${id} not found among the live tokens of project '${projectId}' (see: mcp list-tokens)`,
    );
  }
  return revoked;
}
