// The MCP endpoint's preHandler: the Origin check the Streamable HTTP transport asks for, then the
// token from the URL (it alone names the project: every tool reads only that project), then the
// v1 data family's rate limit, counted per token: one per POST, and one more per further message of
// a batch (chargeBatch), so a batch costs what its messages would cost sent one by one.
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { Deps } from '../../../deps.ts';
import { authenticateMcpToken } from '../../../domain/mcp/authenticate-mcp-token.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { checkKeyRateLimit } from '../../rate-limit.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The MCP token mcpToken authenticated (its rate-limit budget); null before it runs. */
    mcpTokenId: number | null;
  }
}

// Negated: token ids and server key ids are both serials, and a token must not share a key's budget.
const chargeToken = (deps: Deps, projectId: string, tokenId: number) =>
  checkKeyRateLimit(deps, 'data', projectId, -tokenId);

function hostOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.host.toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Transport "Security Warning": an Origin header that is present and not ours is refused with 403
 * (DNS rebinding). Ours is the request's own host or PUBLIC_URL's. Server-side MCP clients send no
 * Origin; a browser page elsewhere could not read our answers anyway (no CORS headers are sent).
 */
function checkOrigin(deps: Deps, req: FastifyRequest): void {
  const origin = req.headers.origin;
  if (origin === undefined) {
    return;
  }
  const host = hostOf(origin);
  const ours = [req.host.toLowerCase(), hostOf(deps.config.publicUrl)];
  if (host === undefined || !ours.includes(host)) {
    throw new ApiError(403, MSG.mcpOriginForbidden);
  }
}

export function mcpToken(deps: Deps): preHandlerAsyncHookHandler {
  return async (req) => {
    checkOrigin(deps, req);
    const token = (req.params as { token?: unknown }).token;
    const owner = typeof token === 'string' ? await authenticateMcpToken(deps, token, deps.now()) : undefined;
    if (!owner) {
      throw new ApiError(401, MSG.mcpTokenInvalid);
    }
    req.project = owner.project;
    req.mcpTokenId = owner.token.id;
    await chargeToken(deps, owner.project.id, owner.token.id);
  };
}

/**
 * The rest of a batch's cost: the POST paid for its first message. The whole batch is refused with
 * the single POST's 429 (RateLimitError) once the budget runs out: an answer array cannot hold an
 * HTTP error, and JSON-RPC has no code for it.
 */
export async function chargeBatch(deps: Deps, req: FastifyRequest, messages: number): Promise<void> {
  if (!req.project || req.mcpTokenId === null) {
    throw new Error('route is missing the mcpToken preHandler');
  }
  for (let i = 1; i < messages; i++) {
    await chargeToken(deps, req.project.id, req.mcpTokenId);
  }
}
