// The delivery job's work for one analytics destination: the claimed rows whose hold ended are
// settled first (released if the install was decided meanwhile, else dead: settle-held-deliveries.ts);
// rows deleted with their user since the claim are dropped; the rest go out in one vendor request,
// recorded as every delivery is (record-attempt.ts). A removed connection ends the rows dead with
// the reason; a switched-off one leaves them pending, untried, until it is active again.
// When the vendor's answer names the users it refused (read-refusals.ts), only those end dead; the
// others are sent, or go again at once when the vendor processed none of them (at most
// MAX_RESENDS times in a job; then they are given back, due, untried, for the job's retry).
// GA4 takes one user per request: its rows go one request each, in order; after a failure to retry
// the rest are given back untried (as webhooks: deliver-batch.ts).

import type { AnalyticsVendor } from '../../store/postgres/analytics-connections.ts';
import { type Delivery, findPendingIds, finishDeliveries, releaseDeliveries } from '../../store/postgres/deliveries.ts';
import type { BatchOutcome, DeliverDeps, DeliverJob } from '../deliveries/deliver-batch.ts';
import { logAttempt } from '../deliveries/log-attempt.ts';
import { recordAttempt } from '../deliveries/record-attempt.ts';
import { settleHeldDeliveries } from '../deliveries/settle-held-deliveries.ts';
import { recordRefusals } from './record-refusals.ts';
import { sendAnalyticsBatch } from './send-analytics-batch.ts';
import { usersPerRequest } from './vendors.ts';

export const MAX_RESENDS = 2;

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

/** Sends the rows, again without those refused while the vendor processed none; adds to `out`. */
async function sendRows(
  deps: DeliverDeps,
  job: DeliverJob,
  vendor: AnalyticsVendor,
  rows: Delivery[],
  out: BatchOutcome,
): Promise<void> {
  let batch = rows;
  for (let resends = 0; batch.length > 0; resends++) {
    if (resends > MAX_RESENDS || (resends > 0 && deps.queue?.closing)) {
      await releaseDeliveries(
        deps.sql,
        batch.map((r) => r.id),
      );
      out.retry = true;
      return;
    }
    const startedAtMs = deps.now();
    const attempt = await sendAnalyticsBatch(deps, job.projectId, vendor, batch);
    if (attempt === undefined) {
      return;
    }
    if (attempt === 'removed') {
      await endRemoved(deps, job, vendor, batch);
      out.dead += batch.length;
      return;
    }
    if (!attempt.refusals) {
      const r = await recordAttempt(deps, job, batch, attempt.result, startedAtMs);
      out.sent += r.sent;
      out.dead += r.dead;
      out.retry ||= r.retry;
      return;
    }
    const r = await recordRefusals(deps, job, batch, { ...attempt, refusals: attempt.refusals, startedAtMs });
    out.sent += r.sent;
    out.dead += r.dead;
    out.retry ||= r.retry;
    batch = r.resend;
  }
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
  const size = usersPerRequest(vendor);
  for (let i = 0; i < rows.length; i += size) {
    const rest = rows.slice(i);
    if (out.retry || (i > 0 && deps.queue?.closing)) {
      await releaseDeliveries(
        deps.sql,
        rest.map((r) => r.id),
      );
      out.retry = true;
      break;
    }
    await sendRows(deps, job, vendor, rest.slice(0, size), out);
  }
  return out;
}
