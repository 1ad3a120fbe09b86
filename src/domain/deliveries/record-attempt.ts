// The outcome of one delivery attempt, recorded for every row it carried (shared by Meta, webhooks
// and the analytics vendors): sent; dead at once; or back to pending after an exponential backoff
// (1 s doubling), dead past the queue's attempts. One delivery_attempts log row per attempt.
import { QUEUES, queueOptions } from '../../queue/names.ts';
import { type Delivery, finishDeliveries, retryDeliveries } from '../../store/postgres/deliveries.ts';
import type { DeliverDeps, DeliverJob } from './deliver-batch.ts';
import { logAttempt } from './log-attempt.ts';
import type { AttemptResult } from './send-attempt.ts';

export const maxAttempts = (): number => queueOptions(QUEUES.deliveries).attempts;
const backoffMs = (attempts: number): number => queueOptions(QUEUES.deliveries).backoffMs * 2 ** attempts;

export async function recordAttempt(
  deps: DeliverDeps,
  job: DeliverJob,
  rows: Delivery[],
  r: AttemptResult,
  startedAtMs: number,
): Promise<{ sent: number; dead: number; retry: boolean }> {
  const ids = rows.map((d) => d.id);
  const now = new Date(deps.now());
  let dead = 0;
  if (r.outcome === 'sent') {
    await finishDeliveries(deps.sql, ids, 'sent', null, now);
  } else if (r.outcome === 'dead') {
    await finishDeliveries(deps.sql, ids, 'dead', `HTTP ${r.httpStatus}: ${r.summary}`, now);
    dead = ids.length;
  } else {
    const attempts = Math.min(...rows.map((d) => d.attempts));
    const reason = r.httpStatus ? `HTTP ${r.httpStatus}: ${r.summary}` : r.summary;
    const nextAt = new Date(now.getTime() + backoffMs(attempts));
    dead = await retryDeliveries(deps.sql, ids, { reason, nextAt, maxAttempts: maxAttempts(), now });
  }
  const outcome = r.outcome === 'retry' && dead === ids.length ? 'dead' : r.outcome;
  await logAttempt(deps, {
    projectId: job.projectId,
    destination: job.destination,
    startedAtMs,
    outcome,
    httpStatus: r.httpStatus,
    deliveryIds: ids,
    latencyMs: r.latencyMs,
    response: r.summary,
  });
  return {
    sent: r.outcome === 'sent' ? ids.length : 0,
    dead,
    retry: r.outcome === 'retry' && dead < ids.length,
  };
}
