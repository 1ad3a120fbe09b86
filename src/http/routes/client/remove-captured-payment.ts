// POST /api/client/remove-captured-payment (spec: response not shown; real-clients §4.7: any 2xx
// JSON object). 200 with how many payments were removed; 0 (unknown id, or removed already) is
// still 200, so a repeated refund call is harmless.
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../deps.ts';
import { removePayments } from '../../../domain/events/remove-payments.ts';
import { projectToken } from '../../auth/project-token.ts';
import { projectOf } from '../../auth/service-key.ts';
import { MSG } from '../../messages.ts';
import { parseRemoveCapturedPayment } from '../../parse/client/remove-captured-payment.ts';
import { ok } from '../../reply.ts';

export function registerRemoveCapturedPaymentRoute(app: FastifyInstance, deps: Deps): void {
  app.post('/remove-captured-payment', { preHandler: projectToken(deps) }, async (req, reply) => {
    const input = parseRemoveCapturedPayment(req.body);
    const removed = await removePayments(deps, projectOf(req), input);
    const message = removed === 0 ? MSG.noPaymentRemoved : MSG.paymentsRemoved(removed);
    return ok(reply, 200, message, { message, removed });
  });
}
