// The delivery job's work for one analytics destination: the claimed rows whose hold ended are
// settled first (released if the install was decided meanwhile, else dead: settle-held-deliveries.ts);
// rows deleted with their user since the claim are dropped; the rest go out in one vendor request,
// recorded as every delivery is (record-attempt.ts). A removed connection ends the rows dead with
// the reason; a switched-off one leaves them pending, untried, until it is active again.

import type { AnalyticsVendor } from '../../store/postgres/analytics-connections.ts';
import { type Delivery, findPendingIds, finishDeliveries } from '../../store/postgres/deliveries.ts';
import type { BatchOutcome, DeliverDeps, DeliverJob } from '../deliveries/deliver-batch.ts';
import { logAttempt } from '../deliveries/log-attempt.ts';
import { recordAttempt } from '../deliveries/record-attempt.ts';
import { settleHeldDeliveries } from '../deliveries/settle-held-deliveries.ts';
import { sendAnalyticsBatch } from './send-analytics-batch.ts';

export const connectionRemovedReason = (vendor: AnalyticsVendor): string =>
  `not sent: the ${vendor} connection was removed`;

async function endRemoved(deps: DeliverDeps, job: DeliverJob, vendor: AnalyticsVendor, rows: Delivery[]) {
  const ids = rows.map((r) => r.id);
  const startedAtMs = deps.now();
  await finishDeliveries(deps.sql, ids, 'dead', connectionRemovedReason(vendor), new Date(startedAtMs));
  await logAttempt(deps, {
    projectId: job.projectId,
    destination: job.destination,
    startedAtMs,
    outcome: 'dead',
    httpStatus: 0,
    deliveryIds: ids,
    latencyMs: 0,
    response: connectionRemovedReason(vendor),
  });
}

export async function deliverAnalytics(
  deps: DeliverDeps,
  job: DeliverJob,
  vendor: AnalyticsVendor,
  claimed: Delivery[],
): Promise<BatchOutcome> {
  const settled = await settleHeldDeliveries(deps, job, claimed, deps.now());
  const out: BatchOutcome = { claimed: claimed.length, sent: 0, stale: 0, dead: settled.dead, retry: false };
  const pending = await findPendingIds(
    deps.sql,
    settled.rows.map((r) => r.id),
  );
  const rows = settled.rows.filter((r) => pending.has(r.id));
  if (rows.length === 0) {
    return out;
  }
  const startedAtMs = deps.now();
  const result = await sendAnalyticsBatch(deps, job.projectId, vendor, rows);
  if (result === undefined) {
    return out;
  }
  if (result === 'removed') {
    await endRemoved(deps, job, vendor, rows);
    return { ...out, dead: out.dead + rows.length };
  }
  const r = await recordAttempt(deps, job, rows, result, startedAtMs);
  return { ...out, sent: r.sent, dead: out.dead + r.dead, retry: r.retry };
}
