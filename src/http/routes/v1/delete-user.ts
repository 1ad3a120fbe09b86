// DELETE /api/v1/users/:user_id: deletes one user's data everywhere and reports what was removed
// (GDPR; not in the spec). Campaign family: `Server key missing!`/`Server key invalid!`, 10/s per
// key. A user the key's project does not hold is 404, so another project's users stay unseen.
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../deps.ts';
import { CacheUnavailableError, deleteUser } from '../../../domain/users/delete-user.ts';
import { CRUD_AUTH, projectOf, serviceKey } from '../../auth/service-key.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { parseUserIdParam } from '../../parse/v1/users.ts';
import { presentUserDeletion } from '../../present/user-deletion.ts';
import { ok } from '../../reply.ts';

export function registerDeleteUserRoute(app: FastifyInstance, deps: Deps): void {
  app.delete('/users/:user_id', { preHandler: serviceKey(deps, CRUD_AUTH, 'campaign') }, async (req, reply) => {
    const userId = parseUserIdParam(req.params);
    const deletion = await deleteUser(deps, projectOf(req), userId).catch((err) => {
      // Redis away: nothing is deleted yet, and the same request can be sent again.
      throw err instanceof CacheUnavailableError
        ? new ApiError(503, MSG.storeUnavailable, undefined, { 'retry-after': '5' })
        : err;
    });
    if (!deletion) {
      throw new ApiError(404, MSG.userNotFound);
    }
    return ok(reply, 200, MSG.userDeleted, presentUserDeletion(deletion));
  });
}
