// POST /api/client/attribution-data (spec: 401 for a bad token; safe to poll). While the install is
// pending, a device_data.install_ref its init lacked is taken (spec: "include install_ref").
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../deps.ts';
import { readAttribution } from '../../../domain/identity/read-attribution.ts';
import { takeLateInstallRef } from '../../../domain/identity/take-late-install-ref.ts';
import { projectToken } from '../../auth/project-token.ts';
import { projectOf } from '../../auth/service-key.ts';
import { MSG } from '../../messages.ts';
import { readInstallId } from '../../parse/client/common.ts';
import { asRecord } from '../../parse/common.ts';
import { ok } from '../../reply.ts';

export function registerAttributionDataRoute(app: FastifyInstance, deps: Deps): void {
  app.post('/attribution-data', { preHandler: projectToken(deps, { failStatus: 401 }) }, async (req, reply) => {
    const body = asRecord(req.body);
    const installId = readInstallId(body);
    const answer = await readAttribution(deps, projectOf(req), installId);
    const deviceData = body.device_data;
    if (answer.pending && deviceData && typeof deviceData === 'object' && !Array.isArray(deviceData)) {
      await takeLateInstallRef(deps, projectOf(req), installId, deviceData as Record<string, unknown>);
    }
    reply.header('cache-control', answer.pending ? 'no-store' : 'private, max-age=0');
    return ok(reply, 200, answer.pending ? MSG.attributionPending : MSG.attributionFound, {
      ...answer.data,
      ...(answer.pending ? { processing: true } : {}),
    });
  });
}
