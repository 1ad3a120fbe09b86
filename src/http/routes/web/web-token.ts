// Web SDK authentication: the project token in the body, as on /api/client (http/auth/project-token.ts),
// but a bad or missing one answers 401 (the SDK never retries a 401 on another host), and no SDK
// request signature is asked for: a web page cannot keep a signing secret, so a project that
// enforces signing for its apps still takes its web events. A sealed body (the SDK's optional
// payload encryption) carries no readable token and is refused first, saying why.
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { Deps } from '../../../deps.ts';
import { findProjectByTokenCached } from '../../../store/postgres/projects.ts';
import { readToken } from '../../auth/project-token.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { asRecord } from '../../parse/common.ts';
import { checkWebRateLimit } from '../../rate-limit.ts';

/** The SDK's encrypted envelope {lrv, kid, epk, iv, ct}: ECIES to a server key pair we do not hold. */
const isSealed = (body: Record<string, unknown>): boolean => 'lrv' in body && 'ct' in body;

export function webToken(deps: Deps): preHandlerAsyncHookHandler {
  return async (req: FastifyRequest) => {
    // A body that is no object (an array, a number) says so, rather than that it has no token.
    const body = asRecord(req.body);
    if (isSealed(body)) {
      throw new ApiError(400, MSG.webSealedPayload);
    }
    const token = readToken(body);
    const project = token ? await findProjectByTokenCached(deps.sql, token) : undefined;
    if (!project) {
      throw new ApiError(401, MSG.clientTokenInvalid);
    }
    req.project = project;
    // RATE_LIMIT_WEB_PER_SECOND, counted apart from the apps' requests: a busy website must not
    // use up the budget of the project's app installs, nor they its.
    await checkWebRateLimit(deps, project.id);
  };
}
