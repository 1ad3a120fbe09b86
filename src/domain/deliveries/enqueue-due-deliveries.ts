// The schedule's delivery tick: one job per (project, destination) with due rows. The job id is
// the destination's own, with no tick in it: while a destination's job waits, runs or waits for a
// retry, a later tick (or a tick seen by a second process, or a replay) adds nothing, so a
// destination whose endpoint hangs holds one of the queue's slots, never all of them. The queue
// frees the id when the job ends (QueueOptions.removeFinished), and the next tick enqueues the rest.
// Two jobs of one destination would still never send a row twice: rows are claimed with a lease.
import { createHash } from 'node:crypto';
import type { Deps } from '../../deps.ts';
import { QUEUES } from '../../queue/names.ts';
import type { DeliverPayload } from '../../queue/payloads.ts';
import { listDueDestinations } from '../../store/postgres/deliveries.ts';

const idPart = (v: string): string => createHash('sha256').update(v).digest('base64url').slice(0, 22);

/** The destination's one job id (BullMQ refuses ':' in ids, and webhook destinations hold one). */
export const deliveryJobId = (p: DeliverPayload): string => `deliver-${p.projectId}-${idPart(p.destination)}`;

export async function enqueueDelivery(deps: Pick<Deps, 'queue'>, p: DeliverPayload): Promise<void> {
  await deps.queue.enqueue(QUEUES.deliveries, p, deliveryJobId(p));
}

export async function enqueueDueDeliveries(deps: Pick<Deps, 'sql' | 'queue'>, tickMs: number): Promise<number> {
  const due = await listDueDestinations(deps.sql, new Date(tickMs));
  for (const d of due) {
    await enqueueDelivery(deps, d);
  }
  return due.length;
}
