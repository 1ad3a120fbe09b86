// POST /api/client/integrations (real-clients §4.9: iOS needs the body's status to be 200 or 201).
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../deps.ts';
import { saveIntegrations } from '../../../domain/identity/save-integrations.ts';
import { projectToken } from '../../auth/project-token.ts';
import { projectOf } from '../../auth/service-key.ts';
import { MSG } from '../../messages.ts';
import { parseIntegrations } from '../../parse/client/integrations.ts';
import { ok } from '../../reply.ts';

export function registerIntegrationsRoute(app: FastifyInstance, deps: Deps): void {
  app.post('/integrations', { preHandler: projectToken(deps) }, async (req, reply) => {
    await saveIntegrations(deps, projectOf(req), parseIntegrations(req.body));
    return ok(reply, 200, MSG.integrationsSaved, { message: MSG.integrationsSaved });
  });
}
