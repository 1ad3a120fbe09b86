// A project's live MCP tokens for the operator (never the tokens themselves: only their hashes are kept).
import type { PgDeps } from '../../deps.ts';
import { listLiveMcpTokens, type McpToken } from '../../store/postgres/mcp-tokens.ts';
import { requireProject } from '../projects/require-project.ts';

export async function listMcpTokens(deps: Pick<PgDeps, 'sql'>, projectId: string): Promise<McpToken[]> {
  await requireProject(deps, projectId);
  return listLiveMcpTokens(deps.sql, projectId);
}
