// /api/client authentication: the project token in the JSON body (spec). A missing or unknown
// token is a 400 (401 on attribution-data). The token is public (it ships inside apps): it only
// reaches this project's own installs, and never /api/v1. Then the 25/s per-token limit applies,
// then the SDK request signature (sdk-signature.ts: 401 when bad, or missing while enforced).
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { Deps } from '../../deps.ts';
import { findProjectByTokenCached } from '../../store/postgres/projects.ts';
import { ApiError } from '../errors.ts';
import { MSG } from '../messages.ts';
import { checkClientRateLimit } from '../rate-limit.ts';
import { checkSdkSignature } from './sdk-signature.ts';

export function readToken(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return undefined;
  }
  const t = (body as Record<string, unknown>).token;
  // Postgres text refuses NUL: such a token is simply not one of ours (never a 500).
  return typeof t === 'string' && t.length > 0 && t.length <= 256 && !t.includes('\u0000') ? t : undefined;
}

export function projectToken(
  deps: Deps,
  opts: { failStatus: 400 | 401 } = { failStatus: 400 },
): preHandlerAsyncHookHandler {
  return async (req: FastifyRequest) => {
    const token = readToken(req.body);
    const project = token ? await findProjectByTokenCached(deps.sql, token) : undefined;
    if (!project) {
      throw new ApiError(opts.failStatus, MSG.clientTokenInvalid);
    }
    req.project = project;
    await checkClientRateLimit(deps, project.id);
    await checkSdkSignature(deps, req, project);
  };
}
