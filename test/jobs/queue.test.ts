// The job queue behind one interface: the in-process runner (embedded mode) under fake timers, so
// backoff is checked without waiting; and BullMQ on the run's Redis, which skips with the reason
// when the run has no Redis. A deterministic jobId makes a repeated enqueue of the same work run once.
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeEach, describe, expect, inject, it, vi } from 'vitest';
import { createLogger } from '../../src/lib/logger.ts';
import { DEFAULT_QUEUE_OPTIONS, queueOptions } from '../../src/queue/names.ts';
import { createBullQueue, createInProcessQueue, type JobQueue, redisUnreachable } from '../../src/queue/queue.ts';
import { createRedis, waitForRedis } from '../../src/store/redis/client.ts';
import { cleanEnv, startNode } from '../support/processes.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';

const log = createLogger('silent');
// Not listed in QUEUE_OPTIONS, so it runs with the defaults.
const NAME = 'test-queue-defaults';
const { attempts, backoffMs } = DEFAULT_QUEUE_OPTIONS;

/** A handler that records each call and fails the first `failures` of them. */
function recorder(failures = 0) {
  const calls: unknown[] = [];
  const handler = async (payload: unknown) => {
    calls.push(payload);
    if (calls.length <= failures) {
      throw new Error(`planned failure ${calls.length}`);
    }
  };
  return { calls, handler };
}

/** A handler whose first call never settles (a call stuck for good); later calls succeed. */
function stuckOnce() {
  const calls: unknown[] = [];
  const handler = (payload: unknown) => {
    calls.push(payload);
    return calls.length === 1 ? new Promise<void>(() => {}) : Promise.resolve();
  };
  return { calls, handler };
}

describe('in-process queue', () => {
  let queue: JobQueue;
  beforeEach(() => {
    vi.useFakeTimers();
    queue = createInProcessQueue(log);
  });
  afterEach(async () => {
    await queue.close();
    vi.useRealTimers();
  });

  it('when an unlisted queue name is used, then it gets the default attempts and backoff', () => {
    expect(queueOptions(NAME)).toEqual(DEFAULT_QUEUE_OPTIONS);
  });

  it('when the same jobId is enqueued twice while pending, then the job runs once', async () => {
    const r = recorder();
    await queue.startWorkers({ [NAME]: r.handler });

    await queue.enqueue(NAME, { n: 1 }, 'job-a');
    await queue.enqueue(NAME, { n: 2 }, 'job-a');
    await queue.enqueue(NAME, { n: 3 }, 'job-b');
    await vi.runAllTimersAsync();

    expect(r.calls).toEqual([{ n: 1 }, { n: 3 }]);
  });

  it('when a jobId is enqueued again after its job finished, then it runs again (dedupe holds only while pending)', async () => {
    const r = recorder();
    await queue.startWorkers({ [NAME]: r.handler });
    await queue.enqueue(NAME, 'first', 'job-a');
    await vi.runAllTimersAsync();

    await queue.enqueue(NAME, 'again', 'job-a');
    await vi.runAllTimersAsync();

    expect(r.calls).toEqual(['first', 'again']);
  });

  it('when jobs are enqueued before the workers start, then they run once the workers start', async () => {
    const r = recorder();
    await queue.enqueue(NAME, 'early', 'job-early');
    await vi.runAllTimersAsync();
    expect(r.calls).toEqual([]);

    await queue.startWorkers({ [NAME]: r.handler });
    await vi.runAllTimersAsync();

    expect(r.calls).toEqual(['early']);
  });

  it('when the handler fails twice, then it is retried with exponential backoff until it succeeds', async () => {
    const r = recorder(2);
    await queue.startWorkers({ [NAME]: r.handler });

    await queue.enqueue(NAME, 'p', 'job-retry');
    await vi.advanceTimersByTimeAsync(0);
    expect(r.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(backoffMs - 1);
    expect(r.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(r.calls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(2 * backoffMs - 1);
    expect(r.calls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(r.calls).toHaveLength(3);
    await vi.runAllTimersAsync();

    expect(r.calls).toHaveLength(3);
    // Done: the jobId is free again.
    await queue.enqueue(NAME, 'p', 'job-retry');
    await vi.runAllTimersAsync();
    expect(r.calls).toHaveLength(4);
  });

  it('when the handler always fails, then it gives up after `attempts` tries and frees the jobId', async () => {
    const r = recorder(Number.POSITIVE_INFINITY);
    await queue.startWorkers({ [NAME]: r.handler });

    await queue.enqueue(NAME, 'p', 'job-doomed');
    await vi.runAllTimersAsync();

    expect(r.calls).toHaveLength(attempts);
    expect(vi.getTimerCount()).toBe(0);
    await queue.enqueue(NAME, 'p', 'job-doomed');
    await vi.advanceTimersByTimeAsync(0);
    expect(r.calls).toHaveLength(attempts + 1);
  });

  it('when closed while a job runs, then close() waits for it, and no retry is scheduled afterwards', async () => {
    let finish: (() => void) | undefined;
    let calls = 0;
    let finished = false;
    await queue.startWorkers({
      [NAME]: () => {
        calls += 1;
        return new Promise<void>((_, reject) => {
          finish = () => {
            finished = true;
            reject(new Error('failed after close began'));
          };
        });
      },
    });
    await queue.enqueue(NAME, 'slow', 'job-slow');
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toBe(1);

    let closed = false;
    const closing = queue.close().then(() => {
      closed = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(closed).toBe(false);
    finish?.();
    await closing;

    expect(finished).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    await vi.runAllTimersAsync();
    expect(calls).toBe(1);
  });

  it('when closed, then pending retries are cancelled', async () => {
    const r = recorder(Number.POSITIVE_INFINITY);
    await queue.startWorkers({ [NAME]: r.handler });
    await queue.enqueue(NAME, 'p', 'job-cancelled');
    await vi.advanceTimersByTimeAsync(0);
    expect(r.calls).toHaveLength(1);

    await queue.close();
    await vi.runAllTimersAsync();

    expect(r.calls).toHaveLength(1);
  });

  it('when a job never settles, then it fails at its timeout, is retried, and close() no longer waits for it', async () => {
    const timed = createInProcessQueue(log, () => ({ ...DEFAULT_QUEUE_OPTIONS, timeoutMs: 10_000 }));
    const r = stuckOnce();
    await timed.startWorkers({ [NAME]: r.handler });
    await timed.enqueue(NAME, 'p', 'stuck-once');
    await vi.advanceTimersByTimeAsync(9_999);
    const beforeTimeout = r.calls.length;

    await vi.advanceTimersByTimeAsync(1 + backoffMs);
    await timed.enqueue(NAME, 'again', 'stuck-once');
    await vi.advanceTimersByTimeAsync(0);

    expect(beforeTimeout).toBe(1);
    // The retry ran and completed, so the jobId was free again.
    expect(r.calls).toEqual(['p', 'p', 'again']);
    await timed.close();
  });

  it('when a queue caps its backoff, then retries wait 100, 200, 300, 300 ms (doubling, then the cap)', async () => {
    const capped = createInProcessQueue(log, () => ({
      attempts: 5,
      backoffMs: 100,
      maxBackoffMs: 300,
      concurrency: 1,
    }));
    const times: number[] = [];
    await capped.startWorkers({
      [NAME]: async () => {
        times.push(Date.now());
        throw new Error('planned failure');
      },
    });
    await capped.enqueue(NAME, 'p', 'job-capped');
    await vi.runAllTimersAsync();
    await capped.close();

    expect(times.slice(1).map((t, i) => t - (times[i] ?? 0))).toEqual([100, 200, 300, 300]);
  });

  it('when the queues are listed, then attribution and deliveries jobs have a timeout and the daily pass has none', () => {
    expect(queueOptions('attribution').timeoutMs).toBe(120_000);
    expect(queueOptions('attribution').maxBackoffMs).toBe(5_000);
    expect(queueOptions('deliveries').timeoutMs).toBe(120_000);
    expect(queueOptions('uninstall-pass').timeoutMs).toBeUndefined();
  });
});

const redisUrl = inject('redisUrl');

describe('BullMQ queue', () => {
  // One queue per run: names are plain strings, so unlisted ones get DEFAULT_QUEUE_OPTIONS.
  const runId = `${process.pid}-${Date.now().toString(36)}`;
  const conns: Redis[] = [];
  const inspectors: Queue[] = [];
  const queues: JobQueue[] = [];
  const proxies: TcpProxy[] = [];

  /** A queue on `url` (the run's Redis unless given), and an inspector on the run's Redis. */
  async function bull(
    name: string,
    optionsFor = queueOptions,
    url = redisUrl as string,
  ): Promise<{ queue: JobQueue; inspect: Queue }> {
    const commands = createRedis(url, 'commands');
    conns.push(commands);
    await waitForRedis(commands);
    const queue = createBullQueue(
      commands,
      () => {
        const w = createRedis(url, 'worker');
        conns.push(w);
        return w;
      },
      log,
      optionsFor,
    );
    queues.push(queue);
    const inspectConn = createRedis(redisUrl as string, 'worker');
    conns.push(inspectConn);
    const inspect = new Queue(name, { connection: inspectConn });
    inspectors.push(inspect);
    return { queue, inspect };
  }

  afterAll(async () => {
    for (const q of queues) {
      await q.close().catch(() => {});
    }
    for (const q of inspectors) {
      await q.obliterate({ force: true }).catch(() => {});
      await q.close().catch(() => {});
    }
    for (const c of conns) {
      await c.quit().catch(() => c.disconnect());
    }
    for (const p of proxies) {
      await p.close();
    }
  });

  async function until(cond: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!(await cond())) {
      if (Date.now() > end) {
        throw new Error(`condition not met after ${timeoutMs} ms`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it.skipIf(!redisUrl)(
    'when the same jobId is enqueued twice (needs Redis: set TEST_REDIS_URL), then the job runs once, and a repeat after it completed is dropped too',
    async () => {
      const name = `test-dedupe-${runId}`;
      const { queue, inspect } = await bull(name);
      const r = recorder();

      await queue.enqueue(name, { n: 1 }, 'same-id');
      await queue.enqueue(name, { n: 2 }, 'same-id');
      await queue.startWorkers({ [name]: r.handler });
      await until(async () => (await inspect.getCompletedCount()) === 1);
      // A jobId kept among completed jobs is still taken: BullMQ drops the repeat.
      await queue.enqueue(name, { n: 3 }, 'same-id');

      const counts = await inspect.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed');
      expect(counts).toEqual({ waiting: 0, active: 0, delayed: 0, completed: 1, failed: 0 });
      expect(r.calls).toEqual([{ n: 1 }]);
    },
    30_000,
  );

  it.skipIf(!redisUrl)(
    'when the handler fails once (needs Redis: set TEST_REDIS_URL), then BullMQ retries it with backoff and it completes',
    async () => {
      const name = `test-retry-${runId}`;
      const { queue, inspect } = await bull(name);
      const r = recorder(1);

      await queue.startWorkers({ [name]: r.handler });
      await queue.enqueue(name, 'p', 'retry-me');
      await until(async () => (await inspect.getCompletedCount()) === 1);

      expect(r.calls).toEqual(['p', 'p']);
      const job = await inspect.getJob('retry-me');
      expect(job?.attemptsMade).toBe(2);
      expect(job?.opts.attempts).toBe(attempts);
      expect(job?.opts.backoff).toEqual({ type: 'exponential', delay: backoffMs });
    },
    30_000,
  );

  it.skipIf(!redisUrl)(
    'when a job never settles (needs Redis: set TEST_REDIS_URL), then it fails at its timeout and its retry completes',
    async () => {
      const name = `test-timeout-${runId}`;
      const { queue, inspect } = await bull(name, () => ({ ...DEFAULT_QUEUE_OPTIONS, backoffMs: 50, timeoutMs: 500 }));
      const r = stuckOnce();

      await queue.startWorkers({ [name]: r.handler });
      await queue.enqueue(name, 'p', 'stuck-once');
      await until(async () => (await inspect.getCompletedCount()) === 1);

      expect(r.calls).toEqual(['p', 'p']);
      const job = await inspect.getJob('stuck-once');
      expect(job?.attemptsMade).toBe(2);
    },
    30_000,
  );

  it.skipIf(!redisUrl)(
    'when a queue caps its backoff (needs Redis: set TEST_REDIS_URL), then BullMQ retries through the capped strategy and the job completes',
    async () => {
      const name = `test-capped-${runId}`;
      const { queue, inspect } = await bull(name, () => ({
        ...DEFAULT_QUEUE_OPTIONS,
        backoffMs: 50,
        maxBackoffMs: 60,
      }));
      const r = recorder(2);

      await queue.startWorkers({ [name]: r.handler });
      await queue.enqueue(name, 'p', 'capped');
      await until(async () => (await inspect.getCompletedCount()) === 1);

      expect(r.calls).toEqual(['p', 'p', 'p']);
      const job = await inspect.getJob('capped');
      expect(job?.opts.backoff).toEqual({ type: 'capped', delay: 50 });
      expect(job?.attemptsMade).toBe(3);
    },
    30_000,
  );

  it.skipIf(!redisUrl)(
    'when the worker running a job is SIGKILLed (needs Redis: set TEST_REDIS_URL), then another worker takes the job over once its lock lapses and completes it',
    async () => {
      const name = `test-takeover-${runId}`;
      const dead = startNode(
        ['--import', 'tsx', 'test/support/stuck-worker-child.ts'],
        cleanEnv({ REDIS_URL: redisUrl as string, QUEUE_NAME: name }),
      );
      await dead.waitFor('READY', 20_000);
      const { queue, inspect } = await bull(name);
      await queue.enqueue(name, 'p', 'orphaned');
      await dead.waitFor('TOOK "p"', 20_000);
      dead.proc.kill('SIGKILL');
      await dead.waitExit(10_000);
      const r = recorder();

      await queue.startWorkers({ [name]: r.handler });
      await until(async () => (await inspect.getCompletedCount()) === 1, 40_000);

      expect(r.calls).toEqual(['p']);
    },
    60_000,
  );

  it.skipIf(!redisUrl)(
    'when Redis is away at enqueue (needs Redis: set TEST_REDIS_URL), then enqueueOrHold resolves, holds the job, and sends it once Redis is back',
    async () => {
      const name = `test-hold-${runId}`;
      const target = new URL(redisUrl as string);
      const proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
      proxies.push(proxy);
      const proxied = new URL(redisUrl as string);
      proxied.hostname = '127.0.0.1';
      proxied.port = String(proxy.port);
      const { queue, inspect } = await bull(name, queueOptions, proxied.toString());
      const r = recorder();
      await queue.startWorkers({ [name]: r.handler });
      proxy.cut();
      await expect(queue.enqueue(name, 'direct', 'not-taken')).rejects.toThrow();

      await queue.enqueueOrHold(name, 'held', 'held-1');
      await queue.enqueueOrHold(name, 'held again', 'held-1');
      await new Promise((res) => setTimeout(res, 1500));
      proxy.restore();
      await until(async () => (await inspect.getCompletedCount()) === 1, 15_000);

      expect(r.calls).toEqual(['held']);
      expect(await inspect.getJob('not-taken')).toBeUndefined();
    },
    30_000,
  );
});

describe('worker errors', () => {
  // While Redis is away BullMQ reports every reconnect attempt; those are warnings, not errors.
  it.each([
    new Error('connect ECONNREFUSED 127.0.0.1:6379'),
    new Error('Connection is closed.'),
    Object.assign(new Error('read failed'), { code: 'ECONNRESET' }),
    new Error('getaddrinfo ENOTFOUND redis'),
  ])('when a worker reports "%s", then Redis is unreachable', (err) => {
    expect(redisUnreachable(err)).toBe(true);
  });

  it.each([new Error('Missing lock for job 1. moveToFinished'), new Error('ERR unknown command')])(
    'when a worker reports "%s", then it is another error',
    (err) => {
      expect(redisUnreachable(err)).toBe(false);
    },
  );
});
