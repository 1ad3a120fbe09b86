// /api/v1 authentication: the `service-key` header (also `linkrunner-key`, which existing
// integrations send), looked up by SHA-256. Each endpoint family has its own 401 texts (spec).
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { Deps } from '../../deps.ts';
import { hashKey } from '../../lib/ids.ts';
import { findProjectByKeyHash, type Project } from '../../store/postgres/projects.ts';
import { ApiError } from '../errors.ts';
import { MSG } from '../messages.ts';
import { checkKeyRateLimit, type RateLimitGroup } from '../rate-limit.ts';

declare module 'fastify' {
  interface FastifyRequest {
    project: Project | null;
    serverKeyId: number | null;
  }
}

export type AuthTexts = { missing: string; invalid: string };

export const DATA_AUTH: AuthTexts = { missing: MSG.unauthorized, invalid: MSG.unauthorized };
export const ATTRIBUTED_USERS_AUTH: AuthTexts = { missing: MSG.authFailed, invalid: MSG.authFailed };
export const CRUD_AUTH: AuthTexts = { missing: MSG.serverKeyMissing, invalid: MSG.serverKeyInvalid };

function readKey(req: FastifyRequest): string | undefined {
  const raw = req.headers['service-key'] || req.headers['linkrunner-key'];
  const value = Array.isArray(raw) ? undefined : raw?.trim();
  return value ? value : undefined;
}

/** preHandler: authenticates, sets req.project, then applies the key's rate limit for its group. */
export function serviceKey(deps: Deps, texts: AuthTexts, group: RateLimitGroup): preHandlerAsyncHookHandler {
  return async (req) => {
    const key = readKey(req);
    if (!key) {
      throw new ApiError(401, texts.missing);
    }
    const found = key.length <= 256 ? await findProjectByKeyHash(deps.sql, hashKey(key)) : undefined;
    if (!found) {
      throw new ApiError(401, texts.invalid);
    }
    req.project = found.project;
    req.serverKeyId = found.keyId;
    await checkKeyRateLimit(deps, group, found.project.id, found.keyId);
  };
}

/** The project set by serviceKey; a route without the preHandler is a programming error. */
export function projectOf(req: FastifyRequest): Project {
  if (!req.project) {
    throw new Error('route is missing the serviceKey preHandler');
  }
  return req.project;
}
