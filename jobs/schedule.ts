// node-cron table. Entries only enqueue (deterministic job ids make a tick that fires in two
// processes enqueue once); the work itself runs in the queue's workers.
import cron from 'node-cron';
import type { Deps } from '../src/deps.ts';
import { reenqueuePendingAttributions } from '../src/domain/attribution/reenqueue-pending.ts';

export type CronEntry = { name: string; cron: string; run: (deps: Deps, tickMs: number) => Promise<void> };

export const SCHEDULE: CronEntry[] = [
  {
    name: 'reconcile-attribution',
    cron: '* * * * *',
    run: (d, tick) => reenqueuePendingAttributions(d, tick).then(() => {}),
  },
];

export function startSchedule(deps: Deps, entries: CronEntry[] = SCHEDULE): () => Promise<void> {
  const tasks = entries.map((e) =>
    cron.schedule(
      e.cron,
      async (ctx) => {
        try {
          await e.run(deps, ctx.date.getTime());
        } catch (err) {
          deps.log.warn({ cron: e.name, err: String(err) }, 'cron entry failed to enqueue');
        }
      },
      { name: e.name, noOverlap: true },
    ),
  );
  return async () => {
    await Promise.all(tasks.map((t) => t.stop()));
  };
}
