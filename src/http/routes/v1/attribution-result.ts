// GET /api/v1/get-attribution-result (data family: 30/s per key, 401 `Unauthorized access.`).
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../deps.ts';
import { getAttributionResult } from '../../../domain/attribution/get-attribution-result.ts';
import { charLength } from '../../../lib/validate.ts';
import { DATA_AUTH, projectOf, serviceKey } from '../../auth/service-key.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { queryValue } from '../../parse/common.ts';
import { ok } from '../../reply.ts';

function single(query: unknown, key: string): string | undefined {
  const v = queryValue(query, key);
  const s = Array.isArray(v) ? v[0] : v;
  const t = s?.trim();
  return t && charLength(t) <= 256 && !t.includes('\u0000') ? t : undefined;
}

export function registerAttributionResultRoute(app: FastifyInstance, deps: Deps): void {
  app.get('/get-attribution-result', { preHandler: serviceKey(deps, DATA_AUTH, 'data') }, async (req, reply) => {
    const userId = single(req.query, 'user_id');
    const deviceIdentifier = single(req.query, 'device_identifier');
    if (!userId && !deviceIdentifier) {
      throw new ApiError(400, MSG.attributionLookupRequired);
    }
    const result = await getAttributionResult(deps, projectOf(req), { userId, deviceIdentifier });
    if (!result) {
      return reply.code(204).send();
    }
    return ok(reply, 200, MSG.attributionResultFound, result);
  });
}
