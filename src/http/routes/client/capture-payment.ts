// POST /api/client/capture-payment (spec: 201 {msg, status, data: {message}}). 201 only when a
// payment was stored; 200 when nothing was (user not registered through trigger, Rule 3, or a
// repeated payment_id, Rule 4), with a message saying which. Clients accept any 2xx.
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../deps.ts';
import type { CaptureOutcome } from '../../../domain/events/capture-event.ts';
import { capturePayment } from '../../../domain/events/capture-payment.ts';
import { readSkanValues } from '../../../domain/skan/read-skan-values.ts';
import { projectToken } from '../../auth/project-token.ts';
import { projectOf } from '../../auth/service-key.ts';
import { MSG } from '../../messages.ts';
import { parseCapturePayment } from '../../parse/client/capture-payment.ts';
import { presentSkan } from '../../present/skan.ts';
import { ok } from '../../reply.ts';

const PAYMENT_ANSWERS: Record<CaptureOutcome, { status: number; message: string }> = {
  stored: { status: 201, message: MSG.paymentCaptured },
  unregistered: { status: 200, message: MSG.paymentNotStored },
  duplicate: { status: 200, message: MSG.paymentDuplicate },
};

export function registerCapturePaymentRoute(app: FastifyInstance, deps: Deps): void {
  app.post('/capture-payment', { preHandler: projectToken(deps) }, async (req, reply) => {
    const input = parseCapturePayment(req.body);
    const { status, message } = PAYMENT_ANSWERS[await capturePayment(deps, projectOf(req), input)];
    const skan = presentSkan(await readSkanValues(deps, projectOf(req).id, input.installInstanceId, input.platform));
    return ok(reply, status, message, { message, ...skan });
  });
}
