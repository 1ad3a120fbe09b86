// Which payments count towards a SKAN revenue total: money in, counted as reporting counts revenue
// (status PAYMENT_COMPLETED only: an initiated payment is not money yet, and an app that sends a
// purchase as initiated then completed would count it twice). Withdrawals and refunds are not
// negative revenue here (the counters only add; the fine value never drops), so those types and
// the subscription states that move no money in are left out.
import { NOT_REVENUE_TYPES } from '../events/revenue-types.ts';

const NOT_REVENUE = new Set<string>(NOT_REVENUE_TYPES);

export function isSkanRevenue(type: string, status: string): boolean {
  return status === 'PAYMENT_COMPLETED' && !NOT_REVENUE.has(type);
}
