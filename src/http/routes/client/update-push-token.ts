// POST /api/client/update-push-token and the legacy POST /api/client/updatePushToken (AND-1.1):
// the same body and answer, 200 {msg, status, data: {message}} (spec: response not shown).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../../deps.ts';
import { updatePushToken } from '../../../domain/identity/update-push-token.ts';
import { projectToken } from '../../auth/project-token.ts';
import { projectOf } from '../../auth/service-key.ts';
import { MSG } from '../../messages.ts';
import { parseUpdatePushToken } from '../../parse/client/update-push-token.ts';
import { ok } from '../../reply.ts';

export function registerUpdatePushTokenRoutes(app: FastifyInstance, deps: Deps): void {
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    await updatePushToken(deps, projectOf(req), parseUpdatePushToken(req.body));
    return ok(reply, 200, MSG.pushTokenSaved, { message: MSG.pushTokenSaved });
  };
  app.post('/update-push-token', { preHandler: projectToken(deps) }, handler);
  app.post('/updatePushToken', { preHandler: projectToken(deps) }, handler);
}
