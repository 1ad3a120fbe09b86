// POST /api/client/set-user-data (spec: response not shown; ours: 200 {msg, status, data: {updated}}).
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../deps.ts';
import { updateUserData } from '../../../domain/users/update-user-data.ts';
import { projectToken } from '../../auth/project-token.ts';
import { projectOf } from '../../auth/service-key.ts';
import { MSG } from '../../messages.ts';
import { parseSetUserData } from '../../parse/client/set-user-data.ts';
import { ok } from '../../reply.ts';

export function registerSetUserDataRoute(app: FastifyInstance, deps: Deps): void {
  app.post('/set-user-data', { preHandler: projectToken(deps) }, async (req, reply) => {
    const input = parseSetUserData(req.body);
    const { updated } = await updateUserData(deps, projectOf(req), input);
    return ok(reply, 200, updated ? MSG.userDataUpdated : MSG.userDataNoUser, { updated });
  });
}
