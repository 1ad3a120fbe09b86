// Held enqueues (src/queue/hold.ts) under fake timers: an enqueue the queue refuses is held and
// offered again every second, in order, until the queue takes it; the oldest beyond the cap are
// left to the reconciler; close() stops the retries. The BullMQ path is in queue.test.ts.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/lib/logger.ts';
import { createEnqueueHolder } from '../../src/queue/hold.ts';

const log = createLogger('silent');

/** An enqueue that refuses while `down` is set and records what it took. */
function flakyQueue() {
  const taken: string[] = [];
  const state = { down: true, calls: 0 };
  const enqueue = async (_name: string, _payload: unknown, jobId: string) => {
    state.calls++;
    if (state.down) {
      throw new Error('Stream is not writeable');
    }
    taken.push(jobId);
  };
  return { taken, state, enqueue };
}

describe('held enqueues', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('when the queue takes the job at once, then nothing is held', async () => {
    const q = flakyQueue();
    q.state.down = false;
    const holder = createEnqueueHolder(q.enqueue, log);

    await holder.offer('attribution', {}, 'a');

    expect(q.taken).toEqual(['a']);
    expect(holder.held()).toBe(0);
    holder.close();
  });

  it('when the queue refuses, then offer resolves, the job is retried every second, and sent in order once the queue is back', async () => {
    const q = flakyQueue();
    const holder = createEnqueueHolder(q.enqueue, log);

    await holder.offer('attribution', {}, 'a');
    await holder.offer('attribution', {}, 'b');
    await holder.offer('attribution', {}, 'a');
    expect(holder.held()).toBe(2);
    const callsBefore = q.state.calls;
    await vi.advanceTimersByTimeAsync(3000);
    // One refused try per pass: a pass ends at the first refusal.
    expect(q.state.calls - callsBefore).toBe(3);
    q.state.down = false;
    await vi.advanceTimersByTimeAsync(1000);

    expect(q.taken).toEqual(['a', 'b']);
    expect(holder.held()).toBe(0);
    await vi.advanceTimersByTimeAsync(5000);
    expect(q.taken).toEqual(['a', 'b']);
    holder.close();
  });

  it('when more than maxHeld are held, then the oldest is dropped', async () => {
    const q = flakyQueue();
    const holder = createEnqueueHolder(q.enqueue, log, { maxHeld: 2 });

    for (const id of ['a', 'b', 'c']) {
      await holder.offer('attribution', {}, id);
    }
    q.state.down = false;
    await vi.advanceTimersByTimeAsync(1000);

    expect(q.taken).toEqual(['b', 'c']);
    holder.close();
  });

  it('when closed, then held jobs are no longer retried', async () => {
    const q = flakyQueue();
    const holder = createEnqueueHolder(q.enqueue, log);
    await holder.offer('attribution', {}, 'a');

    holder.close();
    q.state.down = false;
    await vi.advanceTimersByTimeAsync(5000);

    expect(q.taken).toEqual([]);
  });
});
