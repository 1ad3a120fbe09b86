// POST /api/client/handle-deeplink (spec: {deeplink, is_linkrunner, processing}).
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../deps.ts';
import { handleDeeplink } from '../../../domain/identity/handle-deeplink.ts';
import { readSkanValues } from '../../../domain/skan/read-skan-values.ts';
import { charLength } from '../../../lib/validate.ts';
import { projectToken } from '../../auth/project-token.ts';
import { projectOf } from '../../auth/service-key.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { readInstallId, storable } from '../../parse/client/common.ts';
import { asRecord } from '../../parse/common.ts';
import { presentSkan } from '../../present/skan.ts';
import { ok } from '../../reply.ts';

const MAX_URL = 4096;

export function registerHandleDeeplinkRoute(app: FastifyInstance, deps: Deps): void {
  app.post('/handle-deeplink', { preHandler: projectToken(deps) }, async (req, reply) => {
    const b = asRecord(req.body);
    const installInstanceId = readInstallId(b);
    const url = typeof b.deeplink_url === 'string' ? storable(b.deeplink_url.trim()) : '';
    if (url === '' || charLength(url) > MAX_URL) {
      throw new ApiError(400, MSG.deeplinkUrlRequired);
    }
    const answer = await handleDeeplink(deps, projectOf(req), { installInstanceId, deeplinkUrl: url });
    const skan = presentSkan(await readSkanValues(deps, projectOf(req).id, installInstanceId));
    return ok(reply, 200, MSG.deeplinkHandled, { ...answer, ...skan });
  });
}
