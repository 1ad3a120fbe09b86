// PUT /api/v1/skan/schema stores the body as the project's next SKAN schema version (201);
// GET answers the current one (404 when none). Campaign family: `Server key missing!` /
// `Server key invalid!`, 10/s per key. Not in the spec; texts are ours.
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../deps.ts';
import { setSkanSchema } from '../../../domain/skan/set-skan-schema.ts';
import { validateSkanSchema } from '../../../domain/skan/validate-schema.ts';
import { findCurrentSkanSchema } from '../../../store/postgres/skan.ts';
import { CRUD_AUTH, projectOf, serviceKey } from '../../auth/service-key.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { ok } from '../../reply.ts';

export function registerSkanSchemaRoutes(app: FastifyInstance, deps: Deps): void {
  const auth = serviceKey(deps, CRUD_AUTH, 'campaign');
  app.put('/skan/schema', { preHandler: auth }, async (req, reply) => {
    const check = validateSkanSchema(req.body);
    if (!check.ok) {
      throw new ApiError(400, MSG.skanSchemaInvalid(check.problem));
    }
    const saved = await setSkanSchema(deps, projectOf(req).id, check.schema);
    return ok(reply, 201, MSG.skanSchemaSaved(saved.version), {
      version: saved.version,
      created_at: saved.createdAt.toISOString(),
      schema: saved.schema,
    });
  });
  app.get('/skan/schema', { preHandler: auth }, async (req, reply) => {
    const stored = await findCurrentSkanSchema(deps.sql, projectOf(req).id);
    if (!stored) {
      throw new ApiError(404, MSG.skanSchemaNotSet);
    }
    return ok(reply, 200, MSG.skanSchemaFound, {
      version: stored.version,
      created_at: stored.createdAt.toISOString(),
      schema: stored.schema,
    });
  });
}
