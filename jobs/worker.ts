// Worker side of the process: registers every queue's handler and the cron table. Handlers unpack
// the payload and call the domain; they hold no rules. Features add their jobs to HANDLERS.
import type { Deps } from '../src/deps.ts';
import type { JobHandler } from '../src/queue/queue.ts';
import { startSchedule } from './schedule.ts';

export function jobHandlers(_deps: Deps): Record<string, JobHandler> {
  return {};
}

/** Starts the workers and the schedule; returns what stops the schedule. */
export async function startWorkers(deps: Deps): Promise<() => Promise<void>> {
  await deps.queue.startWorkers(jobHandlers(deps));
  const stopSchedule = startSchedule(deps);
  deps.log.info({ queue: deps.queue.kind }, 'workers started');
  return stopSchedule;
}
