// POST /api/client/capture-event (spec: 200 {msg, status, data: {message}}). Every outcome answers
// 200 and says what happened: stored, not stored (user not registered through trigger, Rule 1),
// or a repeated event_id ignored.
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../deps.ts';
import { type CaptureOutcome, captureEvent } from '../../../domain/events/capture-event.ts';
import { readSkanValues } from '../../../domain/skan/read-skan-values.ts';
import { projectToken } from '../../auth/project-token.ts';
import { projectOf } from '../../auth/service-key.ts';
import { MSG } from '../../messages.ts';
import { parseCaptureEvent } from '../../parse/client/capture-event.ts';
import { presentSkan } from '../../present/skan.ts';
import { ok } from '../../reply.ts';

const MESSAGES: Record<CaptureOutcome, string> = {
  stored: MSG.eventCaptured,
  unregistered: MSG.eventNotStored,
  duplicate: MSG.eventDuplicate,
};

export function registerCaptureEventRoute(app: FastifyInstance, deps: Deps): void {
  app.post('/capture-event', { preHandler: projectToken(deps) }, async (req, reply) => {
    const input = parseCaptureEvent(req.body);
    const message = MESSAGES[await captureEvent(deps, projectOf(req), input)];
    const skan = presentSkan(await readSkanValues(deps, projectOf(req).id, input.installInstanceId, input.platform));
    return ok(reply, 200, message, { message, ...skan });
  });
}
