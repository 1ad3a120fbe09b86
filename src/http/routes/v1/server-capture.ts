// Server-side twins of the client capture routes, documented for the customer's backend but not in
// the spec (docs api-reference/event-capture.mdx and revenue-tracking.mdx; real-clients §7):
// POST /api/v1/capture-event, /api/v1/capture-payment and /api/v1/remove-payment. Data family
// auth (`Unauthorized access.`, 30/s per key). Rules 1-4 apply as on the client routes.
// Deviation: the docs show capture-event's 201 carrying `status: 200`; our envelope's status always
// equals the HTTP status, so it is 201 / 201.
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../deps.ts';
import { type CaptureOutcome, captureEvent } from '../../../domain/events/capture-event.ts';
import { capturePayment } from '../../../domain/events/capture-payment.ts';
import { removePayments } from '../../../domain/events/remove-payments.ts';
import { DATA_AUTH, projectOf, serviceKey } from '../../auth/service-key.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { parseRemoveCapturedPayment } from '../../parse/client/remove-captured-payment.ts';
import { parseServerCaptureEvent, parseServerCapturePayment } from '../../parse/v1/server-capture.ts';
import { ok } from '../../reply.ts';

type Answer = { status: number; msg: string };

const EVENT_ANSWERS: Record<CaptureOutcome, Answer> = {
  stored: { status: 201, msg: MSG.eventCaptureReceived },
  unregistered: { status: 200, msg: MSG.eventNotStored },
  duplicate: { status: 200, msg: MSG.eventDuplicate },
};

const PAYMENT_ANSWERS: Record<CaptureOutcome, Answer> = {
  stored: { status: 201, msg: MSG.paymentCaptured },
  unregistered: { status: 200, msg: MSG.paymentNotStored },
  duplicate: { status: 200, msg: MSG.paymentDuplicate },
};

export function registerServerCaptureRoutes(app: FastifyInstance, deps: Deps): void {
  const auth = { preHandler: serviceKey(deps, DATA_AUTH, 'data') };
  app.post('/capture-event', auth, async (req, reply) => {
    const { status, msg } = EVENT_ANSWERS[await captureEvent(deps, projectOf(req), parseServerCaptureEvent(req.body))];
    return ok(reply, status, msg, null);
  });
  app.post('/capture-payment', auth, async (req, reply) => {
    const input = parseServerCapturePayment(req.body);
    const { status, msg } = PAYMENT_ANSWERS[await capturePayment(deps, projectOf(req), input)];
    return ok(reply, status, msg, { message: msg });
  });
  // docs: 200, or 400 when no payment is found.
  app.post('/remove-payment', auth, async (req, reply) => {
    const removed = await removePayments(deps, projectOf(req), parseRemoveCapturedPayment(req.body));
    if (removed === 0) {
      throw new ApiError(400, MSG.noPaymentRemoved);
    }
    const message = MSG.paymentsRemoved(removed);
    return ok(reply, 200, message, { message, removed });
  });
}
