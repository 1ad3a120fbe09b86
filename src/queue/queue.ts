// Background jobs behind one interface: BullMQ on Redis in service mode, an in-process runner in
// embedded mode. Enqueue takes a deterministic jobId so a repeated enqueue of the same work is dropped.
import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { type QueueName, queueOptions } from './names.ts';

export type JobHandler = (payload: unknown) => Promise<void>;

export interface JobQueue {
  readonly kind: 'bullmq' | 'in-process';
  enqueue(name: QueueName, payload: unknown, jobId: string): Promise<void>;
  startWorkers(handlers: Record<QueueName, JobHandler>): Promise<void>;
  close(): Promise<void>;
}

export function createBullQueue(connection: Redis, workerConnection: () => Redis, log: Logger): JobQueue {
  const queues = new Map<QueueName, Queue>();
  const workers: Worker[] = [];
  const queueFor = (name: QueueName): Queue => {
    let q = queues.get(name);
    if (!q) {
      const o = queueOptions(name);
      q = new Queue(name, {
        connection,
        defaultJobOptions: {
          attempts: o.attempts,
          backoff: { type: 'exponential', delay: o.backoffMs },
          removeOnComplete: { age: 3600, count: 10_000 },
          removeOnFail: { age: 7 * 24 * 3600 },
        },
      });
      queues.set(name, q);
    }
    return q;
  };
  return {
    kind: 'bullmq',
    async enqueue(name, payload, jobId) {
      await queueFor(name).add(name, payload, { jobId });
    },
    async startWorkers(handlers) {
      for (const [name, handler] of Object.entries(handlers) as [QueueName, JobHandler][]) {
        const w = new Worker(name, (job) => handler(job.data), {
          connection: workerConnection(),
          concurrency: queueOptions(name).concurrency,
        });
        w.on('failed', (job, err) => log.warn({ queue: name, jobId: job?.id, err: err.message }, 'job failed'));
        w.on('error', (err) => log.error({ queue: name, err: err.message }, 'worker error'));
        workers.push(w);
      }
    },
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      await Promise.all([...queues.values()].map((q) => q.close()));
    },
  };
}

type Pending = { name: QueueName; payload: unknown; jobId: string; attempt: number };

/** Embedded mode: jobs run in this process, retried with backoff, deduplicated by jobId while pending. */
export function createInProcessQueue(log: Logger): JobQueue {
  const handlers: Record<QueueName, JobHandler> = {};
  const pending = new Map<string, Pending>();
  const timers = new Set<NodeJS.Timeout>();
  const running = new Set<Promise<void>>();
  let closed = false;

  const schedule = (job: Pending, delayMs: number) => {
    // A job that fails while close() waits for it must not leave a retry timer holding the process open.
    if (closed) {
      return;
    }
    const t = setTimeout(() => {
      timers.delete(t);
      run(job);
    }, delayMs);
    timers.add(t);
  };
  const run = (job: Pending) => {
    const handler = handlers[job.name];
    if (closed || !handler) {
      return;
    }
    const p = handler(job.payload)
      .then(() => {
        pending.delete(`${job.name}:${job.jobId}`);
      })
      .catch((err: unknown) => {
        const o = queueOptions(job.name);
        log.warn({ queue: job.name, jobId: job.jobId, attempt: job.attempt, err: String(err) }, 'job failed');
        if (job.attempt + 1 < o.attempts) {
          schedule({ ...job, attempt: job.attempt + 1 }, o.backoffMs * 2 ** job.attempt);
        } else {
          pending.delete(`${job.name}:${job.jobId}`);
        }
      })
      .finally(() => running.delete(p));
    running.add(p);
  };
  return {
    kind: 'in-process',
    async enqueue(name, payload, jobId) {
      const key = `${name}:${jobId}`;
      if (pending.has(key)) {
        return;
      }
      const job = { name, payload, jobId, attempt: 0 };
      pending.set(key, job);
      schedule(job, 0);
    },
    async startWorkers(h) {
      Object.assign(handlers, h);
      for (const job of pending.values()) {
        if (h[job.name]) {
          schedule(job, 0);
        }
      }
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
