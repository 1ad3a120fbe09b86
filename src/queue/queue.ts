// Background jobs behind one interface: BullMQ on Redis in service mode, an in-process runner in
// embedded mode. Enqueue takes a deterministic jobId so a repeated enqueue of the same work is dropped.
import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { guarded } from '../store/redis/breaker.ts';
import { createEnqueueHolder } from './hold.ts';
import { type QueueName, type QueueOptions, queueOptions, retryDelayMs } from './names.ts';

export type JobHandler = (payload: unknown) => Promise<void>;
type OptionsFor = (name: QueueName) => QueueOptions;
const JOB_LOCK_MS = 10_000;
const STALLED_CHECK_MS = 5_000;

/** The handler, failing the job when it has not settled within the queue's timeoutMs. */
function withTimeout(name: QueueName, handler: JobHandler, optionsFor: OptionsFor): JobHandler {
  const ms = optionsFor(name).timeoutMs;
  if (ms === undefined) {
    return handler;
  }
  return (payload) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`job did not finish within ${ms} ms`)), ms);
      handler(payload)
        .then(resolve, reject)
        .finally(() => clearTimeout(timer));
    });
}

/** Whether the queue's start has failed already (one still starting, waiting for Redis, has not). */
function startFailed(q: Queue): Promise<boolean> {
  return Promise.race([
    q.waitUntilReady().then(
      () => false,
      () => true,
    ),
    new Promise<boolean>((resolve) => setImmediate(() => resolve(false))),
  ]);
}

export interface JobQueue {
  readonly kind: 'bullmq' | 'in-process';
  enqueue(name: QueueName, payload: unknown, jobId: string): Promise<void>;
  /**
   * Enqueue, or when the queue cannot take it now (Redis down), hold the job in this process and
   * offer it again every second until it does (src/queue/hold.ts). Never rejects: for work already
   * committed in Postgres, which the reconciler also finds.
   */
  enqueueOrHold(name: QueueName, payload: unknown, jobId: string): Promise<void>;
  /**
   * Removes a job not running now (waiting, delayed, finished) by its id, if there is one: a GDPR
   * deletion purges the jobs naming the user's installs. In-process jobs live only in memory.
   */
  discard(name: QueueName, jobId: string): Promise<void>;
  startWorkers(handlers: Record<QueueName, JobHandler>): Promise<void>;
  /** True once close() began: a job working through a list stops between items (deliveries). */
  readonly closing: boolean;
  close(): Promise<void>;
}

export function createBullQueue(
  connection: Redis,
  workerConnection: () => Redis,
  log: Logger,
  optionsFor: OptionsFor = queueOptions,
): JobQueue {
  const queues = new Map<QueueName, Queue>();
  let closing = false;
  const workers: Worker[] = [];
  const queueFor = (name: QueueName): Queue => {
    let q = queues.get(name);
    if (!q) {
      const o = optionsFor(name);
      q = new Queue(name, {
        connection,
        defaultJobOptions: {
          attempts: o.attempts,
          // 'capped': the worker's backoffStrategy (retryDelayMs) computes it.
          backoff: { type: o.maxBackoffMs === undefined ? 'exponential' : 'capped', delay: o.backoffMs },
          removeOnComplete: o.removeFinished ? true : { age: 3600, count: 10_000 },
          removeOnFail: o.removeFinished ? true : { age: 7 * 24 * 3600 },
        },
      });
      // Connection errors are logged once by the connection's own listener (src/deps.ts).
      q.on('error', () => {});
      queues.set(name, q);
    }
    return q;
  };
  const enqueue = async (name: QueueName, payload: unknown, jobId: string) => {
    // Fail fast while Redis is away, as every command on this connection does: a queue started now
    // would wait for Redis to come back, holding the request.
    if (connection.status !== 'ready') {
      throw new Error(`Redis is not connected (${connection.status})`);
    }
    const q = queueFor(name);
    try {
      await guarded(connection, () => q.add(name, payload, { jobId }));
    } catch (err) {
      // A BullMQ Queue first used while Redis is away keeps its failed start for good (every later
      // add fails with the same error, Redis back or not): such a queue is dropped and made anew.
      if (await startFailed(q)) {
        queues.delete(name);
        await q.close().catch(() => {});
      }
      throw err;
    }
  };
  const holder = createEnqueueHolder(enqueue, log);
  return {
    kind: 'bullmq',
    enqueue,
    enqueueOrHold: holder.offer,
    async discard(name, jobId) {
      const q = queueFor(name);
      await guarded(connection, () => q.remove(jobId));
    },
    async startWorkers(handlers) {
      for (const [name, handler] of Object.entries(handlers) as [QueueName, JobHandler][]) {
        const run = withTimeout(name, handler, optionsFor);
        const o = optionsFor(name);
        const w = new Worker(name, (job) => run(job.data), {
          connection: workerConnection(),
          concurrency: o.concurrency,
          // A worker that died (SIGKILL, lost host) holds its jobs until their lock lapses and a
          // live worker's stalled check sees it: with BullMQ's 30 s / 30 s that took 30–60 s
          // (fault F5 drained in 53 s), with these at most about 15 s. Locks are renewed every 5 s.
          lockDuration: JOB_LOCK_MS,
          stalledInterval: STALLED_CHECK_MS,
          settings: { backoffStrategy: (attemptsMade: number) => retryDelayMs(o, attemptsMade) },
        });
        w.on('failed', (job, err) => log.warn({ queue: name, jobId: job?.id, err: err.message }, 'job failed'));
        // While Redis is away every reconnect attempt reports here: expected, and the held-jobs
        // path covers it, so a warning; anything else is an error.
        w.on('error', (err) =>
          redisUnreachable(err)
            ? log.warn({ queue: name, err: err.message }, 'worker cannot reach redis')
            : log.error({ queue: name, err: err.message }, 'worker error'),
        );
        workers.push(w);
      }
    },
    get closing() {
      return closing;
    },
    async close() {
      closing = true;
      holder.close();
      await Promise.all(workers.map((w) => w.close()));
      await Promise.all([...queues.values()].map((q) => q.close()));
    },
  };
}

type Pending = { name: QueueName; payload: unknown; jobId: string; attempt: number };

/**
 * Embedded mode: jobs run in this process, retried with backoff, deduplicated by jobId while pending,
 * and at most the queue's `concurrency` at once (as BullMQ's workers in service mode): thousands of
 * installs enqueued by a burst of inits wait in line instead of all contending for the Postgres pool
 * and the ClickHouse engine at once, and close() waits only for the jobs already running. Jobs not
 * yet started when the process stops are re-enqueued from Postgres state (the reconciler).
 */
export function createInProcessQueue(log: Logger, optionsFor: OptionsFor = queueOptions): JobQueue {
  const handlers: Record<QueueName, JobHandler> = {};
  const pending = new Map<string, Pending>();
  const timers = new Set<NodeJS.Timeout>();
  const running = new Set<Promise<void>>();
  const ready = new Map<QueueName, Pending[]>();
  const active = new Map<QueueName, number>();
  let closed = false;

  const schedule = (job: Pending, delayMs: number) => {
    // A job that fails while close() waits for it must not leave a retry timer holding the process open.
    if (closed) {
      return;
    }
    const t = setTimeout(() => {
      timers.delete(t);
      const line = ready.get(job.name) ?? [];
      line.push(job);
      ready.set(job.name, line);
      drain(job.name);
    }, delayMs);
    timers.add(t);
  };
  const drain = (name: QueueName) => {
    const line = ready.get(name) ?? [];
    while (!closed && handlers[name] && line.length > 0 && (active.get(name) ?? 0) < optionsFor(name).concurrency) {
      run(line.shift() as Pending);
    }
  };
  const run = (job: Pending) => {
    const handler = handlers[job.name] as JobHandler;
    active.set(job.name, (active.get(job.name) ?? 0) + 1);
    const p = handler(job.payload)
      .then(() => {
        pending.delete(`${job.name}:${job.jobId}`);
      })
      .catch((err: unknown) => {
        const o = optionsFor(job.name);
        log.warn({ queue: job.name, jobId: job.jobId, attempt: job.attempt, err: String(err) }, 'job failed');
        if (job.attempt + 1 < o.attempts) {
          schedule({ ...job, attempt: job.attempt + 1 }, retryDelayMs(o, job.attempt + 1));
        } else {
          pending.delete(`${job.name}:${job.jobId}`);
        }
      })
      .finally(() => {
        running.delete(p);
        active.set(job.name, (active.get(job.name) ?? 1) - 1);
        drain(job.name);
      });
    running.add(p);
  };
  const enqueue = async (name: QueueName, payload: unknown, jobId: string) => {
    const key = `${name}:${jobId}`;
    if (pending.has(key)) {
      return;
    }
    const job = { name, payload, jobId, attempt: 0 };
    pending.set(key, job);
    schedule(job, 0);
  };
  return {
    kind: 'in-process',
    enqueue,
    // Nothing to hold: this queue always takes the job.
    enqueueOrHold: enqueue,
    // Nothing is stored outside this process: a job of a deleted install runs and finds nothing.
    async discard() {},
    async startWorkers(h) {
      for (const [name, handler] of Object.entries(h)) {
        handlers[name] = withTimeout(name, handler, optionsFor);
      }
      for (const name of Object.keys(h)) {
        drain(name as QueueName);
      }
    },
    get closing() {
      return closed;
    },
    async close() {
      closed = true;
      for (const t of timers) {
        clearTimeout(t);
      }
      await Promise.allSettled([...running]);
    },
  };
}

const UNREACHABLE = /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|EAI_AGAIN|Connection is closed/;

/** An ioredis error that says the server cannot be reached (down, restarting, unresolvable). */
export function redisUnreachable(err: Error): boolean {
  const code = (err as { code?: unknown }).code;
  return UNREACHABLE.test(err.message) || (typeof code === 'string' && UNREACHABLE.test(code));
}
