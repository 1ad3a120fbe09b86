// Building and checking a Conversions API server event (no services): Purchase event ids, currency
// and value from the payment, product groups, and ViewContent without a value.
import { describe, expect, it } from 'vitest';
import { buildMetaEvent, forwardedProductIds } from '../../../src/domain/deliveries/build-meta-event.ts';
import { validateMetaEvent } from '../../../src/domain/deliveries/validate-meta-event.ts';
import type { DeliveryContext } from '../../../src/store/postgres/delivery-context.ts';

const ctx = {
  installInstanceId: 'iid-1',
  platform: 'IOS',
  ip: '203.0.113.9',
  userAgent: 'App/1.0',
  appVersion: '1.0',
  osVersion: '17.4',
  deviceModel: 'iPhone15,2',
  gaid: null,
  idfa: null,
  userId: 'u-1',
  email: null,
  phone: null,
} as unknown as DeliveryContext;

const GROUP = {
  item_group_ids: ['g-1'],
  contents: [{ id: 'g-1', quantity: 2, item_price: 5 }],
  content_type: 'product_group',
  num_items: 2,
};

describe('buildMetaEvent', () => {
  it('when a Purchase has an order_id, then it is the event_id; else the payment_id; else the fact id', () => {
    const base = { standardEvent: 'Purchase', factId: 'pay_x', occurredAtMs: 1_700_000_000_500 };
    const pay = (paymentId: string | null) => ({ paymentId, amount: '10', currency: 'inr' });
    expect(buildMetaEvent({ ...base, eventData: { order_id: 'o-9' }, payment: pay('p-1') }, ctx).event_id).toBe('o-9');
    expect(buildMetaEvent({ ...base, eventData: null, payment: pay('p-1') }, ctx).event_id).toBe('p-1');
    const e = buildMetaEvent({ ...base, eventData: null, payment: pay(null) }, ctx);
    expect(e).toMatchObject({
      event_id: 'pay_x',
      event_time: 1_700_000_000,
      custom_data: { value: 10, currency: 'INR' },
    });
    expect(e.app_data).toMatchObject({
      advertiser_tracking_enabled: 0,
      extinfo: ['i2', '', '1.0', '1.0', '17.4', 'iPhone15,2', ...Array(10).fill('')],
    });
    expect(e.user_data).toEqual({
      external_id: [expect.stringMatching(/^[a-f0-9]{64}$/)],
      client_ip_address: '203.0.113.9',
      client_user_agent: 'App/1.0',
      anon_id: 'iid-1',
    });
  });
});

describe('validateMetaEvent', () => {
  const event = (name: string, data: Record<string, unknown>) =>
    buildMetaEvent({ standardEvent: name, factId: 'f', occurredAtMs: 0, eventData: data }, ctx);

  it('when product groups carry their own content_type and totals, then the event is valid', () => {
    const e = event('AddToCart', { ...GROUP, value: 10, currency: 'usd' });
    expect(validateMetaEvent(e)).toBeUndefined();
    expect(forwardedProductIds(e)).toEqual(['g-1']);
  });

  it('when ViewContent has no value, then no value or currency is required', () => {
    expect(validateMetaEvent(event('ViewContent', { ...GROUP, num_items: undefined }))).toBeUndefined();
  });

  it('when a Purchase lacks order_id through event data alone, then the payment supplies it', () => {
    const e = buildMetaEvent(
      {
        standardEvent: 'Purchase',
        factId: 'f',
        occurredAtMs: 0,
        eventData: GROUP,
        payment: { paymentId: 'p-2', amount: '10', currency: 'EUR' },
      },
      ctx,
    );
    expect(validateMetaEvent(e)).toBeUndefined();
    expect(e.custom_data.order_id).toBe('p-2');
  });
});
