// POST /webhook/revenuecat (product notes "RevenueCat"): RevenueCat's webhook, with the project's
// authorization token in the Authorization header as the customer typed it into RevenueCat: the
// bare token or `Bearer <token>`. The token alone names the project; it is checked before the body
// is read. Every event that is handled answers 200, stored or not (RevenueCat counts any other
// status, 201 included, as a failure and retries it): `data.result` says what happened. A 200 is
// sent only once what the event stores is committed; a failure answers 5xx and RevenueCat retries,
// which stores nothing twice (receive-event.ts). `removed`, `reduced` and `restored` say what a
// refund or a REFUND_REVERSED did to the refunded payment (removed, lowered, given back). No rate
// limit and no fact-backlog refusal: RevenueCat retries only five times (over about two and a half
// hours), then drops the event.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../../../deps.ts';
import type { RevenueCatEvent } from '../../../domain/revenuecat/map-event.ts';
import { type RevenueCatOutcome, receiveRevenueCatEvent } from '../../../domain/revenuecat/receive-event.ts';
import { hashKey } from '../../../lib/ids.ts';
import type { Project } from '../../../store/postgres/projects.ts';
import { findProjectByRevenueCatTokenHash } from '../../../store/postgres/revenuecat-connections.ts';
import { projectOf } from '../../auth/service-key.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { parseRevenueCatEvent } from '../../parse/webhooks/revenuecat.ts';
import { ok } from '../../reply.ts';

const MAX_TOKEN = 256;

/** The token of the Authorization header: `Bearer <token>` or the bare token; undefined when none. */
function readRevenueCatToken(header: string | undefined): string | undefined {
  const token = (header ?? '')
    .trim()
    .replace(/^bearer\s+/i, '')
    .trim();
  return token !== '' && token.length <= MAX_TOKEN ? token : undefined;
}

async function revenueCatAuth(deps: Deps, req: FastifyRequest): Promise<void> {
  const token = readRevenueCatToken(req.headers.authorization);
  const project = token ? await findProjectByRevenueCatTokenHash(deps.sql, hashKey(token)) : undefined;
  if (!project) {
    throw new ApiError(401, MSG.unauthorized);
  }
  req.project = project;
}

function messageOf(o: RevenueCatOutcome, e: RevenueCatEvent, project: Project): string {
  switch (o.result) {
    case 'refund_reversed':
      return o.restored > 0 ? MSG.revenueCatRefundReversed : MSG.revenueCatNothingToReverse;
    case 'stored':
      return o.refund ? MSG.revenueCatRefundCaptured : MSG.paymentCaptured;
    case 'duplicate':
      return MSG.paymentDuplicate;
    case 'unregistered':
      return MSG.paymentNotStored;
    case 'sandbox':
      return MSG.revenueCatSandbox;
    case 'test':
      return MSG.revenueCatTest;
    case 'not_a_payment':
      return MSG.revenueCatNotAPayment(e.type);
    case 'currency':
      return MSG.revenueCatCurrency(project.displayCurrency);
  }
}

export function registerRevenueCatWebhook(app: FastifyInstance, deps: Deps): void {
  app.post('/webhook/revenuecat', { onRequest: (req) => revenueCatAuth(deps, req) }, async (req, reply) => {
    const event = parseRevenueCatEvent(req.body);
    const project = projectOf(req);
    const outcome = await receiveRevenueCatEvent(deps, project, event);
    const message = messageOf(outcome, event, project);
    return ok(reply, 200, message, {
      message,
      result: outcome.result,
      payment_type: outcome.payment?.type ?? null,
      payment_status: outcome.payment?.status ?? null,
      removed: outcome.removed,
      reduced: outcome.reduced,
      restored: outcome.restored,
    });
  });
}
