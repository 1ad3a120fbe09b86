// Queue names and their retry policy, in one place. Each feature adds its queue here; a name not
// listed runs with DEFAULT_QUEUE_OPTIONS.
export type QueueOptions = {
  attempts: number;
  backoffMs: number;
  concurrency: number;
  /**
   * A job still running after this long fails and is retried (its late result is ignored); none if
   * unset. Without it a job stuck on a call that never settles (seen after a Postgres restart) held
   * its BullMQ lock, renewed by its live worker, until the process stopped.
   */
  timeoutMs?: number;
  /**
   * The retry delay doubles from backoffMs up to this; unbounded if unset. Attribution jobs that
   * failed through an outage of a few seconds had reached 16–64 s delays, so installs settled only
   * when the reconciler's next minute came (fault suite drains of 53–89 s).
   */
  maxBackoffMs?: number;
  /**
   * A finished or failed job is removed at once (not kept for an hour or a week), so its job id is
   * free for the next enqueue: a queue with one fixed id per unit of work (deliveries: one per
   * destination) then has at most one job of that unit waiting or running. In-process, ids are
   * always freed when a job ends.
   */
  removeFinished?: boolean;
};

/** Delay before the retry that follows `attemptsMade` tries (1 after the first failure). */
export function retryDelayMs(o: QueueOptions, attemptsMade: number): number {
  const exponential = o.backoffMs * 2 ** Math.max(0, attemptsMade - 1);
  return o.maxBackoffMs === undefined ? exponential : Math.min(o.maxBackoffMs, exponential);
}

export const DEFAULT_QUEUE_OPTIONS: QueueOptions = { attempts: 5, backoffMs: 1000, concurrency: 4 };

export const QUEUES = {
  attribution: 'attribution',
  deliveries: 'deliveries',
  uninstallPass: 'uninstall-pass',
} as const;

export const QUEUE_OPTIONS: Readonly<Record<string, QueueOptions>> = {
  // Retries while an ad network's attribution API (Apple Search Ads) is briefly unavailable. Jobs
  // running together are decided in batches (attributionBatcher), so many may run at once.
  // Deciding is idempotent (the decision only lands on a pending install), so a retry of a job
  // that was stuck is safe. Retries stop growing at 5 s (12 tries span about 50 s); installs still
  // undecided after that are re-enqueued every minute by the reconciler. A finished job is removed at
  // once: its data names the install (a personal identifier), which a GDPR deletion must not leave in
  // Redis for an hour, or a week (catalog D9: "any BullMQ jobs for U are purged"); a repeated enqueue
  // of a decided install then costs a lookup, and failures are in the log ('job failed').
  [QUEUES.attribution]: {
    attempts: 12,
    backoffMs: 500,
    concurrency: 64,
    timeoutMs: 120_000,
    maxBackoffMs: 5_000,
    removeFinished: true,
  },
  // Outgoing deliveries (Meta CAPI, webhooks): rows carry the same attempts and backoff, then go dead.
  // Rows are leased per attempt, so a retry of a stuck job sends only what is still due. One job id
  // per destination: a destination that hangs holds one of the 4 slots, never all of them.
  [QUEUES.deliveries]: { attempts: 8, backoffMs: 1000, concurrency: 4, timeoutMs: 120_000, removeFinished: true },
  // One daily pass at a time; a retry continues where it stopped (installs pushed today are skipped).
  [QUEUES.uninstallPass]: { attempts: 3, backoffMs: 60_000, concurrency: 1 },
};

export type QueueName = string;

export function queueOptions(name: QueueName): QueueOptions {
  return QUEUE_OPTIONS[name] ?? DEFAULT_QUEUE_OPTIONS;
}
