// What an MCP token is: its shape, the most a project may hold (product-notes "MCP": at most 10
// tokens per project) and the URL path it is used at. Shared by the CLI verbs and the route.
import { randomBytes } from 'node:crypto';

export const MAX_LIVE_MCP_TOKENS = 10;

/** `mcp_` and 32 random bytes, base64url: URL-safe as one path segment, never an `sk_` server key. */
export function newMcpToken(): string {
  return `mcp_${randomBytes(32).toString('base64url')}`;
}

/** Characters kept to tell tokens apart in listings (`mcp_` and four of the random ones). */
export const MCP_TOKEN_PREFIX_CHARS = 8;

/** Anything longer is no token of ours: refused before it is hashed or looked up. */
export const MCP_TOKEN_MAX_CHARS = 128;

export const mcpPath = (token: string): string => `/mcp/${token}`;
