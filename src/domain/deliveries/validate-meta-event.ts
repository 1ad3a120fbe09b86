// The spec's field rules for forwarded commerce events ("Commerce events forwarded to the
// ad-network dataset"), checked before an event is queued: an event that breaks one is stored as
// invalid with the reason (see `deliveries dead-letters`) and never sent. Returns the first
// broken rule, or undefined.
import { isValidCurrency } from '../../lib/validate.ts';
import type { MetaServerEvent } from './build-meta-event.ts';

const isStringArray = (v: unknown): v is string[] =>
  Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string' && x !== '');
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

type Content = { id: string; quantity: number; item_price: number };
const isContent = (c: unknown): c is Content => {
  const o = c as Record<string, unknown> | null;
  return (
    typeof o === 'object' && o !== null && typeof o.id === 'string' && isNumber(o.quantity) && isNumber(o.item_price)
  );
};

function checkProducts(d: Record<string, unknown>): string | undefined {
  const byContent = d.content_ids !== undefined;
  const ids = byContent ? d.content_ids : d.item_group_ids;
  if (!isStringArray(ids)) {
    return 'content_ids or item_group_ids must be a non-empty array of strings';
  }
  const expectedType = byContent ? 'product' : 'product_group';
  if (d.content_type !== expectedType) {
    return `content_type must be '${expectedType}' with ${byContent ? 'content_ids' : 'item_group_ids'}`;
  }
  if (!Array.isArray(d.contents) || d.contents.length === 0 || !d.contents.every(isContent)) {
    return 'contents must be a non-empty array of {id: string, quantity: number, item_price: number}';
  }
  if (!(d.contents as Content[]).every((c) => ids.includes(c.id))) {
    return `every contents id must be one of the ${byContent ? 'content_ids' : 'item_group_ids'}`;
  }
  return undefined;
}

function checkAmounts(e: MetaServerEvent, d: Record<string, unknown>): string | undefined {
  const needsValue = e.event_name === 'Purchase' || e.event_name === 'AddToCart';
  const contents = d.contents as Content[];
  if (needsValue || d.value !== undefined) {
    if (!isNumber(d.value)) {
      return 'value must be a number (no currency symbol)';
    }
    const total = Math.round(contents.reduce((s, c) => s + c.item_price * c.quantity, 0) * 1e6) / 1e6;
    if (Math.abs(total - d.value) > 0.005) {
      return `value ${d.value} must equal the sum of item_price times quantity (${total})`;
    }
    if (typeof d.currency !== 'string' || !isValidCurrency(d.currency)) {
      return 'currency must be a 3-letter ISO 4217 code whenever value is sent';
    }
  }
  if (needsValue) {
    const qty = contents.reduce((s, c) => s + c.quantity, 0);
    if (!isNumber(d.num_items) || d.num_items !== qty) {
      return `num_items must be the total quantity across contents (${qty})`;
    }
  }
  if (e.event_name === 'Purchase' && (typeof d.order_id !== 'string' || d.order_id === '')) {
    return 'order_id must be a string for Purchase';
  }
  return undefined;
}

export function validateMetaEvent(e: MetaServerEvent): string | undefined {
  return checkProducts(e.custom_data) ?? checkAmounts(e, e.custom_data);
}
