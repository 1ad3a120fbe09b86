// Which payments count towards a SKAN revenue total: money in, not failed or cancelled. Withdrawals
// and refunds are not negative revenue here (the counters only add; the fine value never drops).
const NOT_REVENUE_TYPES = new Set([
  'FUNDS_WITHDRAWAL',
  'SUBSCRIPTION_REFUNDED',
  'SUBSCRIPTION_CANCELLED',
  'SUBSCRIPTION_BILLING_ISSUE',
]);
const NOT_REVENUE_STATUSES = new Set(['PAYMENT_FAILED', 'PAYMENT_CANCELLED']);

export function isSkanRevenue(type: string, status: string): boolean {
  return !NOT_REVENUE_TYPES.has(type) && !NOT_REVENUE_STATUSES.has(status);
}
