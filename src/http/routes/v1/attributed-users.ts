// GET /api/v1/attributed-users (data family: 30/s per key; 401 `Authentication failed.`).
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../deps.ts';
import { listAttributedUsers } from '../../../domain/users/list-attributed-users.ts';
import { ATTRIBUTED_USERS_AUTH, projectOf, serviceKey } from '../../auth/service-key.ts';
import { MSG } from '../../messages.ts';
import { parseAttributedUsers } from '../../parse/v1/attributed-users.ts';
import { presentAttributedUser } from '../../present/attributed-user.ts';
import { ok } from '../../reply.ts';

export function registerAttributedUsersRoute(app: FastifyInstance, deps: Deps): void {
  app.get('/attributed-users', { preHandler: serviceKey(deps, ATTRIBUTED_USERS_AUTH, 'data') }, async (req, reply) => {
    const input = parseAttributedUsers(req.query);
    const page = await listAttributedUsers(deps, projectOf(req), input);
    return ok(reply, 200, MSG.attributedUsersListed(page.total, page.page, page.pages), {
      total_users: page.total,
      users: page.users.map((u) => presentAttributedUser(u, page.campaign, deps.config.publicUrl)),
      pagination: { total: page.total, pages: page.pages, page: page.page, limit: page.limit },
    });
  });
}
