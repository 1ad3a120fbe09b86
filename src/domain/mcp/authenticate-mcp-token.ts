// The project an MCP token (from the URL) belongs to, or undefined for an unknown or revoked one.
// Looked up by SHA-256 on every request (no cache: a revoked token stops at once). last_used_at is
// written at most once a minute per token, so a busy client does not write a row per call.
import type { PgDeps } from '../../deps.ts';
import { hashKey } from '../../lib/ids.ts';
import { findProjectByMcpTokenHash, type McpTokenOwner, touchMcpToken } from '../../store/postgres/mcp-tokens.ts';
import { MCP_TOKEN_MAX_CHARS } from './mcp-token-limits.ts';

const TOUCH_EVERY_SECONDS = 60;

export async function authenticateMcpToken(
  deps: Pick<PgDeps, 'sql'>,
  token: string,
  nowMs: number,
): Promise<McpTokenOwner | undefined> {
  if (token === '' || token.length > MCP_TOKEN_MAX_CHARS) {
    return undefined;
  }
  const owner = await findProjectByMcpTokenHash(deps.sql, hashKey(token));
  if (!owner) {
    return undefined;
  }
  const last = owner.token.lastUsedAt?.getTime();
  if (last === undefined || nowMs - last >= TOUCH_EVERY_SECONDS * 1000) {
    await touchMcpToken(deps.sql, owner.token.id, TOUCH_EVERY_SECONDS);
  }
  return owner;
}
