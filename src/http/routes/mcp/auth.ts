// The MCP endpoint's preHandler: the Origin check the Streamable HTTP transport asks for, then the
// token from the URL (it alone names the project: every tool reads only that project), then the
// v1 data family's rate limit, counted per token.
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { Deps } from '../../../deps.ts';
import { authenticateMcpToken } from '../../../domain/mcp/authenticate-mcp-token.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { checkKeyRateLimit } from '../../rate-limit.ts';

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
    // Negated: token ids and server key ids are both serials, and a token must not share a key's budget.
    await checkKeyRateLimit(deps, 'data', owner.project.id, -owner.token.id);
  };
}
