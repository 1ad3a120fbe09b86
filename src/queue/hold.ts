// Enqueues the queue could not take (Redis down) are held in this process and offered again every
// second until it takes them, so work accepted during an outage starts as soon as Redis is back
// instead of waiting for the reconciler's next pass (fault F1 drained in 75–90 s that way). Held
// jobs die with the process: the reconciler, working from Postgres state, still covers that, and
// it covers whatever is beyond `maxHeld` (the oldest held are dropped first, with a warning).
import type { Logger } from 'pino';
import type { QueueName } from './names.ts';

type Enqueue = (name: QueueName, payload: unknown, jobId: string) => Promise<void>;
type Held = { name: QueueName; payload: unknown; jobId: string };

export type EnqueueHolder = {
  /** Enqueues now, or holds the job and retries; never rejects. */
  offer(name: QueueName, payload: unknown, jobId: string): Promise<void>;
  held(): number;
  close(): void;
};

export function createEnqueueHolder(
  enqueue: Enqueue,
  log: Logger,
  { retryMs = 1000, maxHeld = 50_000 }: { retryMs?: number; maxHeld?: number } = {},
): EnqueueHolder {
  // Keyed by queue and jobId: a job offered twice while held is held once (the first, as BullMQ keeps).
  const held = new Map<string, Held>();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const hold = (job: Held) => {
    const key = `${job.name}:${job.jobId}`;
    if (held.has(key)) {
      return;
    }
    held.set(key, job);
    if (held.size > maxHeld) {
      const [oldest] = held.keys();
      held.delete(oldest as string);
      log.warn({ maxHeld }, 'too many enqueues held; the oldest is left to the reconciler');
    }
    arm();
  };
  const arm = () => {
    if (!closed && timer === undefined && held.size > 0) {
      timer = setTimeout(retry, retryMs);
      timer.unref();
    }
  };
  // In the order they were held; the first failure ends the pass (the queue is still away).
  const retry = async () => {
    let sent = 0;
    for (const [key, job] of held) {
      if (closed) {
        break;
      }
      try {
        await enqueue(job.name, job.payload, job.jobId);
      } catch {
        break;
      }
      held.delete(key);
      sent++;
    }
    if (sent > 0) {
      log.info({ sent, stillHeld: held.size }, 'held enqueues sent');
    }
    timer = undefined;
    arm();
  };

  return {
    async offer(name, payload, jobId) {
      try {
        await enqueue(name, payload, jobId);
      } catch (err) {
        if (held.size === 0) {
          log.warn({ queue: name, err: String(err) }, 'enqueue failed; holding it and retrying every second');
        }
        hold({ name, payload, jobId });
      }
    },
    held: () => held.size,
    close() {
      closed = true;
      clearTimeout(timer);
    },
  };
}
