// The schedule's delivery tick: one job per (project, destination) with due rows. The job id
// holds the tick, so a tick seen by two processes enqueues once, and a later tick gets a new id
// (BullMQ keeps finished ids for a while). Two jobs of one destination never send a row twice:
// rows are claimed with a lease (deliveries.ts).
import { createHash } from 'node:crypto';
import type { Deps } from '../../deps.ts';
import { QUEUES } from '../../queue/names.ts';
import type { DeliverPayload } from '../../queue/payloads.ts';
import { listDueDestinations } from '../../store/postgres/deliveries.ts';

export const DELIVERY_TICK_MS = 5000;

const idPart = (v: string): string => createHash('sha256').update(v).digest('base64url').slice(0, 22);

export async function enqueueDelivery(deps: Pick<Deps, 'queue'>, p: DeliverPayload, round: number): Promise<void> {
  await deps.queue.enqueue(QUEUES.deliveries, p, `deliver-${p.projectId}-${idPart(p.destination)}-r${round}`);
}

export async function enqueueDueDeliveries(deps: Pick<Deps, 'sql' | 'queue'>, tickMs: number): Promise<number> {
  const due = await listDueDestinations(deps.sql, new Date(tickMs));
  const round = Math.floor(tickMs / DELIVERY_TICK_MS);
  for (const d of due) {
    await enqueueDelivery(deps, d, round);
  }
  return due.length;
}
