// Queue names and their retry policy, in one place. Each feature adds its queue here; a name not
// listed runs with DEFAULT_QUEUE_OPTIONS.
export type QueueOptions = { attempts: number; backoffMs: number; concurrency: number };

export const DEFAULT_QUEUE_OPTIONS: QueueOptions = { attempts: 5, backoffMs: 1000, concurrency: 4 };

export const QUEUES = { attribution: 'attribution' } as const;

export const QUEUE_OPTIONS: Readonly<Record<string, QueueOptions>> = {
  // Retries quickly while the clicks an install may match are still on their way to ClickHouse.
  [QUEUES.attribution]: { attempts: 12, backoffMs: 500, concurrency: 8 },
};

export type QueueName = string;

export function queueOptions(name: QueueName): QueueOptions {
  return QUEUE_OPTIONS[name] ?? DEFAULT_QUEUE_OPTIONS;
}
