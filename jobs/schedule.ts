// node-cron table. Entries only enqueue (deterministic job ids make a tick that fires in two
// processes enqueue once); the work itself runs in the queue's workers. Cron times are UTC: without
// a timezone node-cron follows the host's zone, and with TZ=America/New_York the 03:00 UTC pass
// ran at 08:00 UTC (07:00 in summer).
import cron from 'node-cron';
import type { Deps } from '../src/deps.ts';
import { reenqueuePendingAttributions } from '../src/domain/attribution/reenqueue-pending.ts';
import { enqueueDueDeliveries } from '../src/domain/deliveries/enqueue-due-deliveries.ts';
import { enqueueUninstallPass } from '../src/queue/enqueue.ts';

export type CronEntry = { name: string; cron: string; run: (deps: Deps, tickMs: number) => Promise<void> };

export const SCHEDULE: CronEntry[] = [
  {
    name: 'reconcile-attribution',
    cron: '* * * * *',
    run: (d, tick) => reenqueuePendingAttributions(d, tick).then(() => {}),
  },
  // Outgoing deliveries (Meta CAPI, webhooks): every 5 s, one job per destination with due rows.
  { name: 'deliveries', cron: '*/5 * * * * *', run: (d, tick) => enqueueDueDeliveries(d, tick).then(() => {}) },
  // Uninstall tracking: one silent push a day to every install with a push token (03:00 UTC).
  { name: 'uninstall-pass', cron: '0 3 * * *', run: (d, tick) => enqueueUninstallPass(d, tick) },
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
      { name: e.name, noOverlap: true, timezone: 'UTC' },
    ),
  );
  return async () => {
    await Promise.all(tasks.map((t) => t.stop()));
  };
}
