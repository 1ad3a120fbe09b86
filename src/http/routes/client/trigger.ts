// POST /api/client/trigger (spec: 200 {msg, status, data: {deeplink, trigger}}; 400 for a bad token).
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../deps.ts';
import { readSkanValues } from '../../../domain/skan/read-skan-values.ts';
import { registerUser } from '../../../domain/users/register-user.ts';
import { projectToken } from '../../auth/project-token.ts';
import { projectOf } from '../../auth/service-key.ts';
import { MSG } from '../../messages.ts';
import { readPlatform } from '../../parse/client/common.ts';
import { parseTrigger } from '../../parse/client/trigger.ts';
import { asRecord } from '../../parse/common.ts';
import { presentSkan } from '../../present/skan.ts';
import { ok } from '../../reply.ts';

export function registerTriggerRoute(app: FastifyInstance, deps: Deps): void {
  app.post('/trigger', { preHandler: projectToken(deps) }, async (req, reply) => {
    const input = parseTrigger(req.body);
    const answer = await registerUser(deps, projectOf(req), input);
    const skan = presentSkan(
      await readSkanValues(deps, projectOf(req).id, input.installInstanceId, readPlatform(asRecord(req.body))),
    );
    return ok(reply, 200, answer.trigger ? MSG.userRegistered : MSG.userIdentified, { ...answer, ...skan });
  });
}
