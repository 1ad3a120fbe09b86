// The reconciler: installs still undecided a minute after init (a lost job: a crash between the
// init commit and the enqueue, Redis down, attempts exhausted) are enqueued again. Decisions are
// idempotent, so a duplicate run costs a lookup, never a second decision.
import type { Deps } from '../../deps.ts';
import { enqueueAttribution } from '../../queue/enqueue.ts';
import { listPendingInstalls } from '../../store/postgres/installs.ts';

const PENDING_FOR_MS = 60_000;
const BATCH = 1000;

export async function reenqueuePendingAttributions(deps: Pick<Deps, 'sql' | 'queue'>, tickMs: number): Promise<number> {
  const pending = await listPendingInstalls(deps.sql, PENDING_FOR_MS, BATCH);
  const round = Math.floor(tickMs / 60_000);
  for (const p of pending) {
    await enqueueAttribution(deps, p.project_id, p.install_instance_id, round);
  }
  return pending.length;
}
