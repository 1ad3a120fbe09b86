// POST /api/client/init (spec: 202 with a bare {processing_id, status, message, success} body).
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../deps.ts';
import { registerInstall } from '../../../domain/identity/register-install.ts';
import { projectToken } from '../../auth/project-token.ts';
import { projectOf } from '../../auth/service-key.ts';
import { MSG } from '../../messages.ts';
import { parseInit } from '../../parse/client/init.ts';

export function registerInitRoute(app: FastifyInstance, deps: Deps): void {
  app.post('/init', { preHandler: projectToken(deps) }, async (req, reply) => {
    const input = parseInit(req.body);
    const { processingId } = await registerInstall(deps, projectOf(req), input, {
      ip: req.ip,
      userAgent: req.headers['user-agent'] ?? '',
    });
    return reply
      .code(202)
      .send({ processing_id: processingId, status: 'accepted', message: MSG.initAccepted, success: true });
  });
}
