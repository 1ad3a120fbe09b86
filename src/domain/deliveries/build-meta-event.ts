// A mapped capture-event or capture-payment fact as a Conversions API server event (Meta "server
// event parameters"): action_source app, event_id stable across retries (Purchase: the order id,
// else the payment id, else our fact id), user_data with contact fields hashed here, at queue time
// (hash-user-data.ts), so raw email or phone never reaches the delivery row, a job or Meta;
// client IP and user agent travel unhashed as Meta asks.
import type { DeliveryContext } from '../../store/postgres/delivery-context.ts';
import { hashContact } from './hash-user-data.ts';

export type MetaFact = {
  standardEvent: string;
  factId: string;
  occurredAtMs: number;
  eventData: Record<string, unknown> | null;
  /** Purchase only. */
  payment?: { paymentId: string | null; amount: string; currency: string };
};

const CUSTOM_FIELDS = [
  'content_ids',
  'item_group_ids',
  'contents',
  'content_type',
  'value',
  'currency',
  'num_items',
  'order_id',
] as const;

// "" counts as absent, as null does: React Native's Android bridge sends every JS null as ""
// (real-clients), and a Purchase whose order_id or currency was "" went invalid, or took the event
// key `Purchase:` that every later such payment of the project then collided with.
function customData(f: MetaFact): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of CUSTOM_FIELDS) {
    const v = f.eventData?.[k];
    if (v !== undefined && v !== null && v !== '') {
      out[k] = v;
    }
  }
  if (f.payment) {
    // The payment's own amount is the Purchase value; the project currency unless event_data names one.
    out.value = Number(f.payment.amount);
    out.currency ??= f.payment.currency;
    out.order_id ??= f.payment.paymentId ?? f.factId;
  }
  if (typeof out.currency === 'string') {
    out.currency = out.currency.trim().toUpperCase();
  }
  return out;
}

function userData(ctx: DeliveryContext): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const em = hashContact('em', ctx.email);
  const ph = hashContact('ph', ctx.phone);
  const ext = hashContact('external_id', ctx.userId);
  if (em) {
    out.em = [em];
  }
  if (ph) {
    out.ph = [ph];
  }
  if (ext) {
    out.external_id = [ext];
  }
  if (ctx.ip) {
    out.client_ip_address = ctx.ip;
  }
  if (ctx.userAgent) {
    out.client_user_agent = ctx.userAgent;
  }
  const madid = ctx.gaid ?? ctx.idfa;
  if (madid) {
    out.madid = madid;
  }
  out.anon_id = ctx.installInstanceId;
  return out;
}

// Meta's app events need app_data; extinfo is a 16-entry array led by the platform code.
function appData(ctx: DeliveryContext): Record<string, unknown> {
  const code = ctx.platform === 'IOS' ? 'i2' : 'a2';
  const extinfo = [code, '', ctx.appVersion, ctx.appVersion, ctx.osVersion, ctx.deviceModel, ...Array(10).fill('')];
  return {
    advertiser_tracking_enabled: ctx.gaid || ctx.idfa ? 1 : 0,
    application_tracking_enabled: 1,
    extinfo,
  };
}

export type MetaServerEvent = {
  event_name: string;
  event_time: number;
  event_id: string;
  action_source: 'app';
  user_data: Record<string, unknown>;
  app_data: Record<string, unknown>;
  custom_data: Record<string, unknown>;
};

export function buildMetaEvent(f: MetaFact, ctx: DeliveryContext): MetaServerEvent {
  const custom = customData(f);
  const eventId = f.payment ? String(custom.order_id) : f.factId;
  return {
    event_name: f.standardEvent,
    event_time: Math.floor(f.occurredAtMs / 1000),
    event_id: eventId,
    action_source: 'app',
    user_data: userData(ctx),
    app_data: appData(ctx),
    custom_data: custom,
  };
}

/** Product ids the event forwards (the catalog match rate counts them). */
export function forwardedProductIds(e: MetaServerEvent): string[] {
  const ids = e.custom_data.content_ids ?? e.custom_data.item_group_ids;
  return Array.isArray(ids) ? ids.filter((x): x is string => typeof x === 'string') : [];
}
