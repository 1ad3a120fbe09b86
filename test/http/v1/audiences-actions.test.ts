// GET /api/v1/audiences/export, which facts count as the segment's action (README "Audience
// exports"): `payment_type=any` means users who paid, so it follows the revenue rule (ClickHouse
// migration 0031: FUNDS_WITHDRAWAL and SUBSCRIPTION_CANCELLED/REFUNDED/BILLING_ISSUE move no money
// in) while naming one of those types still selects it; and an event name is matched trimmed on
// both sides, because capture-event stores names as sent ("purchase ") and the parser trims the
// name asked. Facts go through the real server-side capture routes and the fact writer.
import { describe, expect, it } from 'vitest';
import { eventAt, exportRequest, landFacts, paymentAt, seedUser } from '../../support/audiences.ts';
import { useClientHarness } from '../../support/client.ts';
import { newProject } from '../../support/harness.ts';

const h = useClientHarness();

const WINDOW = { from: '2025-04-01', to: '2025-04-30', format: 'plain' };
const userIds = (body: string) => body.split('\n').map((l) => l.split(',')[0]);

describe('200 payment types', () => {
  it('when payment_type is any, then withdrawals and the subscription states without a charge are left out; named, they are selected', async () => {
    const p = await newProject(h().deps);
    const paid: Record<string, string> = {
      'a-one-time': 'ONE_TIME',
      'b-renewed': 'SUBSCRIPTION_RENEWED',
      'c-topup': 'WALLET_TOPUP',
      'd-withdrew': 'FUNDS_WITHDRAWAL',
      'e-cancelled': 'SUBSCRIPTION_CANCELLED',
      'f-refunded': 'SUBSCRIPTION_REFUNDED',
      'g-billing-issue': 'SUBSCRIPTION_BILLING_ISSUE',
    };
    for (const [userId, type] of Object.entries(paid)) {
      await seedUser(h(), p, { userId, email: `${userId}@example.com` });
      await paymentAt(h(), p, userId, '2025-04-10T10:00:00Z', { type });
    }
    await landFacts(h());

    const any = await exportRequest(h(), p, { ...WINDOW, payment_type: 'any' });
    const withdrawals = await exportRequest(h(), p, { ...WINDOW, payment_type: 'funds_withdrawal' });
    const refunds = await exportRequest(h(), p, { ...WINDOW, payment_type: 'SUBSCRIPTION_REFUNDED' });

    expect(any.statusCode).toBe(200);
    expect(userIds(any.body)).toEqual(['user_id', 'a-one-time', 'b-renewed', 'c-topup', '']);
    expect(any.trailers?.['x-audience-rows']).toBe('3');
    expect(userIds(withdrawals.body)).toEqual(['user_id', 'd-withdrew', '']);
    expect(userIds(refunds.body)).toEqual(['user_id', 'f-refunded', '']);
  });

  it('when a user only withdrew and another bought too, then any keeps the buyer alone', async () => {
    const p = await newProject(h().deps);
    await seedUser(h(), p, { userId: 'both', email: 'both@example.com' });
    await seedUser(h(), p, { userId: 'only-out', email: 'out@example.com' });
    await paymentAt(h(), p, 'both', '2025-04-10T10:00:00Z', { type: 'FUNDS_WITHDRAWAL' });
    await paymentAt(h(), p, 'both', '2025-04-11T10:00:00Z', { type: 'DEFAULT' });
    await paymentAt(h(), p, 'only-out', '2025-04-10T10:00:00Z', { type: 'FUNDS_WITHDRAWAL' });
    await landFacts(h());

    const res = await exportRequest(h(), p, { ...WINDOW, payment_type: 'ANY' });

    expect(userIds(res.body)).toEqual(['user_id', 'both', '']);
  });
});

describe('200 event names', () => {
  it.each([['purchase'], [' purchase '], ['purchase\t']])(
    'when event=%j is asked, then events stored with spaces around the name count, and other names do not',
    async (asked) => {
      const p = await newProject(h().deps);
      const stored: Record<string, string> = {
        'a-exact': 'purchase',
        'b-trailing': 'purchase ',
        'c-leading': '  purchase',
        'd-tab-newline': '\tpurchase\n',
        'e-nbsp': '\u00a0purchase\u00a0',
        'f-inner-space': 'pur chase',
        'g-plural': 'purchases',
        'h-prefixed': 'x purchase',
      };
      for (const [userId, name] of Object.entries(stored)) {
        await seedUser(h(), p, { userId, email: `${userId}@example.com` });
        await eventAt(h(), p, userId, name, '2025-04-10T10:00:00Z');
      }
      await landFacts(h());

      const res = await exportRequest(h(), p, { ...WINDOW, event: asked });

      expect(res.statusCode).toBe(200);
      expect(userIds(res.body)).toEqual([
        'user_id',
        'a-exact',
        'b-trailing',
        'c-leading',
        'd-tab-newline',
        'e-nbsp',
        '',
      ]);
    },
  );

  it('when the stored name has spaces inside, then only the same inner text matches it', async () => {
    const p = await newProject(h().deps);
    await seedUser(h(), p, { userId: 'spaced', email: 'spaced@example.com' });
    await eventAt(h(), p, 'spaced', ' add to cart ', '2025-04-10T10:00:00Z');
    await landFacts(h());

    const same = await exportRequest(h(), p, { ...WINDOW, event: 'add to cart' });
    const squeezed = await exportRequest(h(), p, { ...WINDOW, event: 'add  to cart' });

    expect(userIds(same.body)).toEqual(['user_id', 'spaced', '']);
    expect(userIds(squeezed.body)).toEqual(['user_id', '']);
  });
});
