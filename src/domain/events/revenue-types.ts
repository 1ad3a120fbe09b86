// Payment types that move no money in: a wallet's withdrawal and the subscription states without a
// charge. Revenue leaves them out (ClickHouse migration 0031 filters the views on the same list),
// as do SKAN revenue and an audience of "users who paid" (`payment_type=any`).
export const NOT_REVENUE_TYPES = [
  'FUNDS_WITHDRAWAL',
  'SUBSCRIPTION_CANCELLED',
  'SUBSCRIPTION_REFUNDED',
  'SUBSCRIPTION_BILLING_ISSUE',
] as const;
