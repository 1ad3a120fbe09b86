// `deliveries replay`: dead deliveries (retries exhausted, or refused with a 4xx) back to pending,
// and their destinations enqueued at once. Invalid ones stay: they would fail the same checks.
// Named ids must all be dead deliveries (of the project, when given): a typo or another project's
// id requeued nothing and still exited 0, so any miss is an InputError and nothing is requeued.
import type { Deps } from '../../deps.ts';
import { requeueDeadDeliveries } from '../../store/postgres/deliveries.ts';
import { asSql } from '../../store/postgres/pool.ts';
import { InputError } from '../projects/input-error.ts';
import { enqueueDelivery } from './enqueue-due-deliveries.ts';

export async function replayDeadDeliveries(
  deps: Pick<Deps, 'sql' | 'now'> & Partial<Pick<Deps, 'queue'>>,
  q: { projectId?: string; ids?: string[] },
): Promise<{ deliveries: number; destinations: number }> {
  const now = new Date(deps.now());
  // '007' and '7' name one row; the store answers ids as Postgres prints them.
  const ids = q.ids && [...new Set(q.ids.map((id) => BigInt(id).toString()))];
  const rows = await deps.sql.begin(async (tx) => {
    const requeued = await requeueDeadDeliveries(asSql(tx), { projectId: q.projectId, ids, now });
    const found = new Set(requeued.map((r) => r.id));
    const missing = ids?.filter((id) => !found.has(id)) ?? [];
    if (missing.length > 0) {
      throw new InputError(
        `no dead delivery with id ${missing.join(', ')}${q.projectId ? ` in project ${q.projectId}` : ''} ` +
          '(see: deliveries dead-letters; invalid ones are never replayed)',
      );
    }
    return requeued;
  });
  const destinations = new Map(rows.map((r) => [`${r.projectId}|${r.destination}`, r]));
  // Without a queue (Postgres-only CLI) the schedule's next tick picks them up.
  if (deps.queue) {
    for (const d of destinations.values()) {
      await enqueueDelivery({ queue: deps.queue }, { projectId: d.projectId, destination: d.destination });
    }
  }
  return { deliveries: rows.length, destinations: destinations.size };
}
