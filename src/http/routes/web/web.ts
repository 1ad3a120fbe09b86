// The Web SDK's collector: POST /web/ingest, and /web/collect where bundles cached before the SDK
// moved off that path (blocklists match "collect") still post. Each path answers its CORS preflight.
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../deps.ts';
import { captureWebEvent, type WebCaptureOutcome } from '../../../domain/web/capture-web-event.ts';
import { projectOf } from '../../auth/service-key.ts';
import { MSG } from '../../messages.ts';
import { ok } from '../../reply.ts';
import { parseWebEvent } from './parse-ingest.ts';
import { answerPreflight, configureWebScope } from './web-scope.ts';
import { webToken } from './web-token.ts';

export const WEB_INGEST_PATHS = ['/web/ingest', '/web/collect'] as const;

const MESSAGES: Record<WebCaptureOutcome, string> = {
  stored: MSG.webEventCaptured,
  duplicate: MSG.webEventDuplicate,
};

export async function registerWebRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  await app.register(async (web) => {
    configureWebScope(web, deps);
    for (const path of WEB_INGEST_PATHS) {
      web.options(path, async (req, reply) => answerPreflight(req, reply));
      web.post(path, { preHandler: webToken(deps) }, async (req, reply) => {
        const input = parseWebEvent(req.body);
        const message = MESSAGES[await captureWebEvent(deps, projectOf(req), input, req.ip)];
        return ok(reply, 200, message, { message });
      });
    }
  });
}
