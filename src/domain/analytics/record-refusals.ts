// The outcome of an attempt whose answer named the users it refused (read-refusals.ts): those rows
// end dead, each with the vendor's reason; the others are sent (the vendor processed them) or
// handed back to be sent again at once (it processed none: they were not at fault, so the attempt
// does not count against them). Those the vendor failed on its side (CleverTap's code 555) go back
// to pending with backoff, as any retried attempt (record-attempt.ts). One delivery_attempts row per
// outcome.
import { type Delivery, finishDeliveries } from '../../store/postgres/deliveries.ts';
import type { DeliverDeps, DeliverJob } from '../deliveries/deliver-batch.ts';
import { logAttempt } from '../deliveries/log-attempt.ts';
import { recordAttempt } from '../deliveries/record-attempt.ts';
import { type AttemptResult, summarize } from '../deliveries/send-attempt.ts';
import type { Refusals } from './read-refusals.ts';

export async function recordRefusals(
  deps: DeliverDeps,
  job: DeliverJob,
  rows: Delivery[],
  attempt: { result: AttemptResult; refusals: Refusals; startedAtMs: number },
): Promise<{ sent: number; dead: number; resend: Delivery[]; retry: boolean }> {
  const { result, refusals, startedAtMs } = attempt;
  const now = new Date(deps.now());
  const byReason = new Map<string, string[]>();
  const others: Delivery[] = [];
  const failed: Delivery[] = [];
  for (const [i, row] of rows.entries()) {
    const reason = refusals.refused.get(i);
    if (refusals.failed?.has(i)) {
      failed.push(row);
    } else if (reason === undefined) {
      others.push(row);
    } else {
      byReason.set(reason, [...(byReason.get(reason) ?? []), row.id]);
    }
  }
  const log = (outcome: 'sent' | 'dead' | 'retry', ids: string[]) =>
    logAttempt(deps, {
      projectId: job.projectId,
      destination: job.destination,
      startedAtMs,
      outcome,
      httpStatus: result.httpStatus,
      deliveryIds: ids,
      latencyMs: result.latencyMs,
      response: result.summary,
    });
  const deadIds: string[] = [];
  for (const [reason, ids] of byReason) {
    await finishDeliveries(deps.sql, ids, 'dead', summarize(`HTTP ${result.httpStatus}: ${reason}`), now);
    deadIds.push(...ids);
  }
  if (deadIds.length > 0) {
    await log('dead', deadIds);
  }
  const retried = await retryFailed(deps, job, failed, attempt);
  const dead = deadIds.length + retried.dead;
  const otherIds = others.map((r) => r.id);
  if (otherIds.length === 0) {
    return { sent: 0, dead, resend: [], retry: retried.retry };
  }
  if (refusals.rest === 'sent') {
    await finishDeliveries(deps.sql, otherIds, 'sent', null, now);
    await log('sent', otherIds);
    return { sent: otherIds.length, dead, resend: [], retry: retried.retry };
  }
  await log('retry', otherIds);
  return { sent: 0, dead, resend: others, retry: retried.retry };
}

/** The rows the vendor failed on its side: back to pending after backoff (dead past the attempts). */
async function retryFailed(
  deps: DeliverDeps,
  job: DeliverJob,
  rows: Delivery[],
  attempt: { result: AttemptResult; refusals: Refusals; startedAtMs: number },
): Promise<{ dead: number; retry: boolean }> {
  const [reason] = attempt.refusals.failed?.values() ?? [];
  if (rows.length === 0 || reason === undefined) {
    return { dead: 0, retry: false };
  }
  const result = { ...attempt.result, outcome: 'retry' as const, summary: summarize(reason) };
  const r = await recordAttempt(deps, job, rows, result, attempt.startedAtMs);
  return { dead: r.dead, retry: r.retry };
}
