// Worker side of the process: registers every queue's handler and the cron table. Handlers unpack
// the payload and call the domain; they hold no rules. Features add their jobs to HANDLERS.
import type { Deps } from '../src/deps.ts';
import { QUEUES } from '../src/queue/names.ts';
import type { JobHandler } from '../src/queue/queue.ts';
import { attributeInstallJob } from './attribute-install.job.ts';
import { deliverJob } from './deliver.job.ts';
import { startFactWriter } from './fact-writer.ts';
import { startSchedule } from './schedule.ts';
import { uninstallPassJob } from './uninstall-pass.job.ts';

export function jobHandlers(deps: Deps): Record<string, JobHandler> {
  return {
    [QUEUES.attribution]: attributeInstallJob(deps),
    [QUEUES.deliveries]: deliverJob(deps),
    [QUEUES.uninstallPass]: uninstallPassJob(deps),
  };
}

/** Starts the workers, the fact writer and the schedule; returns what stops the last two. */
export async function startWorkers(deps: Deps): Promise<() => Promise<void>> {
  await deps.queue.startWorkers(jobHandlers(deps));
  const writer = startFactWriter(deps);
  const stopSchedule = startSchedule(deps);
  deps.log.info({ queue: deps.queue.kind }, 'workers started');
  return async () => {
    await stopSchedule();
    await writer.stop();
  };
}
