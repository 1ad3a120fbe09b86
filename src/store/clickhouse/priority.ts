// Report queries first, in embedded mode. chdb runs the engine in-process and its parameterized
// queries share one process-wide FIFO, so a report's ~10 queries each waited behind whatever the
// attribution jobs and the fact writer had queued: under ingest a 365-day report took 10-15 s or
// hit the request timeout (bench `reporting-under-ingest`). While a foreground block (a report) runs,
// background calls wait to enter the engine, and at most MAX_BACKGROUND of them are in it at any
// time, so a report queues behind a handful of short statements at most. A background call never
// waits more than MAX_WAIT_MS, so a stream of reports cannot stall the writer. Service mode (a
// ClickHouse server runs queries in parallel) does not use this.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ClickHouseClient } from '@clickhouse/client';

const MAX_BACKGROUND = 4;
const MAX_WAIT_MS = 1000;
const GATED = new Set(['query', 'insert', 'command', 'exec']);

const foregroundScope = new AsyncLocalStorage<true>();
let foregroundBlocks = 0;
let backgroundInEngine = 0;
const waiting: (() => void)[] = [];

function admit(): void {
  while (waiting.length > 0 && foregroundBlocks === 0 && backgroundInEngine < MAX_BACKGROUND) {
    backgroundInEngine++; // the slot passes to the waiter
    (waiting.shift() as () => void)();
  }
}

/** Runs fn with its ClickHouse calls ahead of background work (a report the user waits for). */
export async function foreground<T>(fn: () => Promise<T>): Promise<T> {
  foregroundBlocks++;
  try {
    return await foregroundScope.run(true, fn);
  } finally {
    foregroundBlocks--;
    admit();
  }
}

async function background<T>(run: () => Promise<T>): Promise<T> {
  if (foregroundBlocks > 0 || backgroundInEngine >= MAX_BACKGROUND) {
    await new Promise<void>((resolve) => {
      const go = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        const i = waiting.indexOf(go);
        if (i >= 0) {
          waiting.splice(i, 1);
          backgroundInEngine++;
          go();
        }
      }, MAX_WAIT_MS);
      waiting.push(go);
    });
  } else {
    backgroundInEngine++;
  }
  try {
    return await run();
  } finally {
    backgroundInEngine--;
    admit();
  }
}

/** The client with its statements ordered as above. */
export function prioritized(client: ClickHouseClient): ClickHouseClient {
  return new Proxy(client, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') {
        return value;
      }
      if (typeof prop !== 'string' || !GATED.has(prop)) {
        return value.bind(target);
      }
      return (...args: unknown[]) => {
        const run = () => value.apply(target, args);
        return foregroundScope.getStore() ? run() : background(run);
      };
    },
  });
}
