// Which payments count towards a SKAN revenue total: money in, counted as reporting counts revenue
// (status PAYMENT_COMPLETED only: an initiated payment is not money yet, and an app that sends a
// purchase as initiated then completed would count it twice). Withdrawals and refunds are not
// negative revenue here (the counters only add; the fine value never drops), so those types and
// the subscription states that move no money in are left out.
const NOT_REVENUE_TYPES = new Set([
  'FUNDS_WITHDRAWAL',
  'SUBSCRIPTION_REFUNDED',
  'SUBSCRIPTION_CANCELLED',
  'SUBSCRIPTION_BILLING_ISSUE',
]);

export function isSkanRevenue(type: string, status: string): boolean {
  return status === 'PAYMENT_COMPLETED' && !NOT_REVENUE_TYPES.has(type);
}
