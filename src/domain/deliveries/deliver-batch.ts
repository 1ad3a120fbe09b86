// The delivery job's work for one (project, destination): claim due rows (up to Meta's 1,000
// events per request; webhooks one request per row), drop Meta events past its 7-day limit as
// stale instead of letting them fail the batch, send, and record the outcome of every row and a
// log row per attempt. A batch that may succeed later returns `retry`; the job then throws so the
// queue retries it with backoff (rows carry the same backoff, and past MAX_ATTEMPTS go dead).
// Analytics destinations ('analytics:<vendor>') are sent by domain/analytics/deliver-analytics.ts.
import type { Deps } from '../../deps.ts';
import {
  claimDueDeliveries,
  type Delivery,
  finishDeliveries,
  releaseDeliveries,
} from '../../store/postgres/deliveries.ts';
import { deliverAnalytics } from '../analytics/deliver-analytics.ts';
import { analyticsVendorOf, BATCH_LIMIT } from '../analytics/vendors.ts';
import { logAttempt } from './log-attempt.ts';
import { META_DESTINATION } from './queue-deliveries.ts';
import { recordAttempt as record } from './record-attempt.ts';
import { sendMetaBatch } from './send-meta-batch.ts';
import { sendWebhook } from './send-webhook.ts';
import { settleHeldDeliveries } from './settle-held-deliveries.ts';

export const META_BATCH_LIMIT = 1000;
// Sent one by one at up to 5 s each: the batch must finish well inside the claim lease (a hanging
// endpoint ends it after one timeout, see deliverWebhooks).
const WEBHOOK_BATCH_LIMIT = 10;
/** Meta rejects a whole request holding an event older than 7 days; keep a minute of margin. */
export const META_MAX_AGE_MS = 7 * 24 * 3600 * 1000 - 60_000;
const LEASE_MS = 60_000;

export type DeliverDeps = Pick<Deps, 'sql' | 'ch' | 'config' | 'now' | 'log'> & Partial<Pick<Deps, 'queue'>>;
export type DeliverJob = { projectId: string; destination: string };
export type BatchOutcome = { claimed: number; sent: number; stale: number; dead: number; retry: boolean };

async function dropStale(deps: DeliverDeps, job: DeliverJob, rows: Delivery[], nowMs: number): Promise<Delivery[]> {
  const stale = rows.filter((d) => nowMs - d.eventTime.getTime() > META_MAX_AGE_MS);
  if (stale.length === 0) {
    return rows;
  }
  const ids = stale.map((d) => d.id);
  await finishDeliveries(deps.sql, ids, 'stale', "older than the network's 7-day limit", new Date(nowMs));
  await logAttempt(deps, {
    projectId: job.projectId,
    destination: job.destination,
    startedAtMs: nowMs,
    outcome: 'stale',
    httpStatus: 0,
    deliveryIds: ids,
    latencyMs: 0,
    response: "not sent: older than the network's 7-day limit",
  });
  return rows.filter((d) => !ids.includes(d.id));
}

async function deliverMeta(deps: DeliverDeps, job: DeliverJob, rows: Delivery[]): Promise<BatchOutcome> {
  const startedAtMs = deps.now();
  const fresh = await dropStale(deps, job, rows, startedAtMs);
  const out: BatchOutcome = { claimed: rows.length, sent: 0, stale: rows.length - fresh.length, dead: 0, retry: false };
  if (fresh.length === 0) {
    return out;
  }
  const result = await sendMetaBatch(deps, job.projectId, fresh);
  if (!result) {
    // Connection removed or switched off while rows waited: they stay pending until it is back.
    return out;
  }
  return { ...out, ...(await record(deps, job, fresh, result, startedAtMs)) };
}

/**
 * Rows one by one, in order. After a failure to retry (a timeout, a network failure, a 5xx or 429)
 * the rest are given back untried: after a timeout they would wait 5 s each; after a quick 5xx a
 * later row would land before the failed one (a held sign-up before its install's notification,
 * which README orders first). The job ends and retries with backoff, and rows that were never sent
 * do not use up their attempts.
 */
async function deliverWebhooks(deps: DeliverDeps, job: DeliverJob, claimed: Delivery[]): Promise<BatchOutcome> {
  const { rows, dead } = await settleHeldDeliveries(deps, job, claimed, deps.now());
  const out: BatchOutcome = { claimed: claimed.length, sent: 0, stale: 0, dead, retry: false };
  // Rows given back stay due: the job's retry with backoff (or another worker) picks them up.
  const giveBack = async (rest: Delivery[]) => {
    await releaseDeliveries(
      deps.sql,
      rest.map((d) => d.id),
    );
    out.retry = true;
  };
  for (const [i, row] of rows.entries()) {
    if (i > 0 && deps.queue?.closing) {
      // Shutting down: shutdown waits only so long for a job (QUEUE_CLOSE_MS), and a row answered
      // after the stores closed stays leased unrecorded, to be POSTed again by another worker.
      await giveBack(rows.slice(i));
      break;
    }
    const startedAtMs = deps.now();
    const result = await sendWebhook(deps, job.destination, row, startedAtMs);
    if (!result) {
      continue;
    }
    const r = await record(deps, job, [row], result, startedAtMs);
    out.sent += r.sent;
    out.dead += r.dead;
    out.retry ||= r.retry;
    if (result.outcome === 'retry' && i < rows.length - 1) {
      await giveBack(rows.slice(i + 1));
      break;
    }
  }
  return out;
}

export async function deliverBatch(deps: DeliverDeps, job: DeliverJob): Promise<BatchOutcome> {
  const isMeta = job.destination === META_DESTINATION;
  const vendor = analyticsVendorOf(job.destination);
  const rows = await claimDueDeliveries(deps.sql, {
    projectId: job.projectId,
    destination: job.destination,
    now: new Date(deps.now()),
    limit: isMeta ? META_BATCH_LIMIT : vendor ? BATCH_LIMIT[vendor] : WEBHOOK_BATCH_LIMIT,
    leaseMs: LEASE_MS,
  });
  if (rows.length === 0) {
    return { claimed: 0, sent: 0, stale: 0, dead: 0, retry: false };
  }
  if (vendor) {
    return deliverAnalytics(deps, job, vendor, rows);
  }
  return isMeta ? deliverMeta(deps, job, rows) : deliverWebhooks(deps, job, rows);
}
