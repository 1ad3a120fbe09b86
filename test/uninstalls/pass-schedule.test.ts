// The daily pass's cron entry (README Uninstall tracking: "Daily at 03:00 UTC a cron entry enqueues
// one uninstall-pass job"). node-cron follows the host's zone unless told otherwise, so a worker
// started with TZ set ran the pass at 03:00 local time: 08:00 UTC in New York.
import cron from 'node-cron';
import { afterEach, describe, expect, it } from 'vitest';
import { type CronEntry, SCHEDULE, startSchedule } from '../../jobs/schedule.ts';
import type { Deps } from '../../src/deps.ts';

const savedTz = process.env.TZ;

afterEach(async () => {
  if (savedTz === undefined) {
    delete process.env.TZ;
  } else {
    process.env.TZ = savedTz;
  }
  for (const [, t] of cron.getTasks()) {
    await t.destroy();
  }
});

/** The next runs of one entry, scheduled by startSchedule (its run does nothing). */
async function nextRuns(entry: CronEntry, count: number): Promise<Date[]> {
  const stop = startSchedule({} as Deps, [{ ...entry, run: async () => {} }]);
  try {
    const task = [...cron.getTasks().values()].find((t) => t.name === entry.name && t.getStatus() !== 'destroyed');
    return task?.getNextRuns(count) ?? [];
  } finally {
    await stop();
  }
}

describe('uninstall-pass cron entry', () => {
  // One zone per process: node-cron keeps the zone it first saw, so a second TZ here would prove nothing.
  it('when the worker process runs with TZ=America/New_York, then the next uninstall passes are due at 03:00 UTC', async () => {
    process.env.TZ = 'America/New_York';
    const entry = SCHEDULE.find((e) => e.name === 'uninstall-pass') as CronEntry;

    const runs = await nextRuns(entry, 2);

    expect(runs.map((d) => d.toISOString().slice(11))).toEqual(['03:00:00.000Z', '03:00:00.000Z']);
  });
});
