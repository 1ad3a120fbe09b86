// POST /api/client/customer-user-id (real-clients §4.11; not in the spec, the SDKs ignore the body):
// 200 {msg, status, data: {user_id}}.
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../deps.ts';
import { setCustomerUserId } from '../../../domain/users/set-customer-user-id.ts';
import { projectToken } from '../../auth/project-token.ts';
import { projectOf } from '../../auth/service-key.ts';
import { MSG } from '../../messages.ts';
import { parseCustomerUserId } from '../../parse/client/customer-user-id.ts';
import { ok } from '../../reply.ts';

export function registerCustomerUserIdRoute(app: FastifyInstance, deps: Deps): void {
  app.post('/customer-user-id', { preHandler: projectToken(deps) }, async (req, reply) => {
    const input = parseCustomerUserId(req.body);
    await setCustomerUserId(deps, projectOf(req), input);
    return ok(reply, 200, MSG.customerUserIdSet, { user_id: input.userId });
  });
}
