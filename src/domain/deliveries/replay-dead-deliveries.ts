// `deliveries replay`: dead deliveries (retries exhausted, or refused with a 4xx) back to pending,
// and their destinations enqueued at once. Invalid ones stay: they would fail the same checks.
import type { Deps } from '../../deps.ts';
import { requeueDeadDeliveries } from '../../store/postgres/deliveries.ts';
import { enqueueDelivery } from './enqueue-due-deliveries.ts';

export async function replayDeadDeliveries(
  deps: Pick<Deps, 'sql' | 'now'> & Partial<Pick<Deps, 'queue'>>,
  q: { projectId?: string; ids?: string[] },
): Promise<{ destinations: number }> {
  const now = deps.now();
  const destinations = await requeueDeadDeliveries(deps.sql, { ...q, now: new Date(now) });
  // Without a queue (Postgres-only CLI) the schedule's next tick picks them up.
  if (deps.queue) {
    for (const d of destinations) {
      await enqueueDelivery({ queue: deps.queue }, d);
    }
  }
  return { destinations: destinations.length };
}
