// Shutdown waits for the queue's running jobs only so long (deps.ts closeWithin): a job that never
// settles (seen in CI after a Postgres restart) no longer holds the stores open until main.ts's
// forced exit. A real in-process queue with a job that never ends; a close that does end.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { closeWithin } from '../../src/deps.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { QUEUES } from '../../src/queue/names.ts';
import { createInProcessQueue } from '../../src/queue/queue.ts';

function recordingLog() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const log = createLogger('warn', sink);
  return { log, lines };
}

describe('closing the queue at shutdown', () => {
  it('when a running job never settles, then closing gives up after the bound, says so, and shutdown goes on', async () => {
    const { log, lines } = recordingLog();
    const queue = createInProcessQueue(log);
    let started = false;
    await queue.startWorkers({
      [QUEUES.attribution]: () => {
        started = true;
        return new Promise<void>(() => {});
      },
    });
    await queue.enqueue(QUEUES.attribution, {}, 'stuck-job');
    while (!started) {
      await new Promise((r) => setTimeout(r, 5));
    }

    const t0 = performance.now();
    await closeWithin(queue.close(), 200, log, 'queue workers (jobs still running)');
    const ms = performance.now() - t0;

    expect(ms).toBeGreaterThanOrEqual(190);
    expect(ms).toBeLessThan(2000);
    expect(lines.join('')).toContain('shutdown: still waiting to close; going on without it');
  });

  it('when the jobs finish in time, then closing waits for them and logs nothing', async () => {
    const { log, lines } = recordingLog();
    const queue = createInProcessQueue(log);
    let finished = false;
    await queue.startWorkers({
      [QUEUES.attribution]: async () => {
        await new Promise((r) => setTimeout(r, 50));
        finished = true;
      },
    });
    await queue.enqueue(QUEUES.attribution, {}, 'short-job');
    await new Promise((r) => setTimeout(r, 10));

    await closeWithin(queue.close(), 5000, log, 'queue workers (jobs still running)');

    expect(finished).toBe(true);
    expect(lines.join('')).toBe('');
  });
});
