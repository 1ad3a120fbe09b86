// Queues the outgoing deliveries a fact triggers, inside the transaction that records the fact, so
// the fact and its deliveries commit together. Meta: a capture-event or capture-payment whose name
// or type the project mapped, while its connection is active (only facts arriving after activation
// are ever sent). Webhooks: install and signup, to each active webhook that asked for them. A
// project without either costs one indexed lookup. Contact data is hashed here; jobs carry ids only.

import { findActiveMapping, findActiveWebhooks } from '../../store/postgres/connections.ts';
import { insertDeliveries, type NewDelivery } from '../../store/postgres/deliveries.ts';
import { findDeliveryContext } from '../../store/postgres/delivery-context.ts';
import type { Sql } from '../../store/postgres/pool.ts';
import { buildMetaEvent, forwardedProductIds } from './build-meta-event.ts';
import { validateMetaEvent } from './validate-meta-event.ts';
import { webhookBody } from './webhook-body.ts';

type Common = { projectId: string; installInstanceId: string; userId: string | null; occurredAtMs: number };

export type DeliveryFact =
  | (Common & { kind: 'event'; factId: string; eventName: string; eventData: Record<string, unknown> | null })
  | (Common & {
      kind: 'payment';
      factId: string;
      paymentType: string;
      paymentId: string | null;
      amount: string;
      currency: string;
      eventData: Record<string, unknown> | null;
    })
  | (Common & { kind: 'install' })
  /** data: the trigger's `data` object, the webhook's additional_data (kept in the delivery row only). */
  | (Common & { kind: 'signup'; data: Record<string, unknown> });

export const META_DESTINATION = 'meta';
/**
 * How long a sign-up webhook waits for its install's attribution (the reconciler re-enqueues an
 * undecided install every minute); past it, settle-held-deliveries.ts ends the row as dead.
 */
export const HOLD_FOR_ATTRIBUTION_MS = 3600_000;
export const webhookDestination = (id: string): string => `webhook:${id}`;

async function metaDelivery(tx: Sql, f: DeliveryFact): Promise<NewDelivery | undefined> {
  if (f.kind !== 'event' && f.kind !== 'payment') {
    return undefined;
  }
  const name = f.kind === 'event' ? f.eventName : f.paymentType;
  const standardEvent = await findActiveMapping(tx, f.projectId, f.kind, name);
  if (!standardEvent) {
    return undefined;
  }
  const ctx = await findDeliveryContext(tx, f.projectId, f.installInstanceId, f.userId);
  if (!ctx) {
    return undefined;
  }
  const event = buildMetaEvent(
    {
      standardEvent,
      factId: f.factId,
      occurredAtMs: f.occurredAtMs,
      eventData: f.eventData,
      payment: f.kind === 'payment' ? { paymentId: f.paymentId, amount: f.amount, currency: f.currency } : undefined,
    },
    ctx,
  );
  return {
    projectId: f.projectId,
    destination: META_DESTINATION,
    // Caller text of any length (an order_id runs to 4,096 characters): deliveries are unique by
    // its md5 (migration 0027), so the key's size never fails the fact's transaction.
    eventKey: `${event.event_name}:${event.event_id}`,
    userId: f.userId,
    installInstanceId: f.installInstanceId,
    eventTime: new Date(f.occurredAtMs),
    payload: event,
    productIds: forwardedProductIds(event),
    invalidReason: validateMetaEvent(event),
  };
}

async function webhookDeliveries(tx: Sql, f: DeliveryFact): Promise<NewDelivery[]> {
  if (f.kind !== 'install' && f.kind !== 'signup') {
    return [];
  }
  const hooks = await findActiveWebhooks(tx, f.projectId, f.kind);
  if (hooks.length === 0) {
    return [];
  }
  const ctx = await findDeliveryContext(tx, f.projectId, f.installInstanceId, f.userId);
  if (!ctx) {
    return [];
  }
  const body = webhookBody(f.kind, ctx, f.kind === 'signup' ? f.data : undefined);
  const key = `${f.kind}:${f.installInstanceId}:${f.userId ?? ''}`;
  // A sign-up ahead of its install's decision waits for it (the decision fills the campaign fields
  // and makes it due after the install's own row: release-held-deliveries.ts).
  const held = ctx.attributionStatus !== 'decided';
  const heldUntil = held ? new Date(f.occurredAtMs + HOLD_FOR_ATTRIBUTION_MS) : undefined;
  return hooks.map((h) => ({
    projectId: f.projectId,
    destination: webhookDestination(h.id),
    eventKey: key,
    userId: f.userId,
    installInstanceId: f.installInstanceId,
    eventTime: new Date(f.occurredAtMs),
    payload: body,
    heldUntil,
  }));
}

/** Returns how many deliveries were queued (a repeated fact queues none). */
export async function queueDeliveries(tx: Sql, fact: DeliveryFact): Promise<number> {
  const meta = await metaDelivery(tx, fact);
  const hooks = await webhookDeliveries(tx, fact);
  return insertDeliveries(tx, meta ? [meta, ...hooks] : hooks);
}
