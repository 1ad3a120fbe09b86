// Micro-batching: calls that arrive while earlier batches are running are handed to ONE batch
// call, so under load N requests cost one set of statements instead of N sets. Idle, a call starts
// its batch at once (no timer, so no added latency); busy, it waits only for a lane to free up.
// A batch whose work failed for one item's sake (the batch function throws BatchItemsFailed) is
// re-run item by item, so a bad item fails only its own call. Any other error (a lost connection,
// a failed COMMIT that may have landed) rejects every call of the batch and is never re-run.

/** Thrown by a batch function when its work failed before anything was committed. */
export class BatchItemsFailed extends Error {
  constructor(readonly failure: unknown) {
    super('a batch failed before its commit; its items re-run one by one');
  }
}

export type MicroBatcher<I, O> = (item: I) => Promise<O>;

export type MicroBatchOptions<I, O> = {
  /** Batches running at once. */
  lanes: number;
  /** Items per batch at most. */
  maxItems: number;
  /** Runs the items; answers one output per item, in order. Called with one item to re-run alone. */
  run: (items: I[]) => Promise<O[]>;
};

/**
 * One batcher per owner (a pool), made on first use: every caller in the process must reach the
 * same batcher for calls to share batches, and each pool runs its own statements.
 */
export function batcherPerOwner<K extends object, I, O>(
  make: (owner: K) => MicroBatchOptions<I, O>,
): (owner: K) => MicroBatcher<I, O> {
  const made = new WeakMap<K, MicroBatcher<I, O>>();
  return (owner) => {
    let b = made.get(owner);
    if (!b) {
      b = microBatcher(make(owner));
      made.set(owner, b);
    }
    return b;
  };
}

type Pending<I, O> = { item: I; resolve: (o: O) => void; reject: (err: unknown) => void };

export function microBatcher<I, O>(opts: MicroBatchOptions<I, O>): MicroBatcher<I, O> {
  const pending: Pending<I, O>[] = [];
  let busy = 0;

  const runAlone = async (p: Pending<I, O>): Promise<void> => {
    try {
      const [out] = await opts.run([p.item]);
      p.resolve(out as O);
    } catch (err) {
      p.reject(err instanceof BatchItemsFailed ? err.failure : err);
    }
  };

  const runBatch = async (batch: Pending<I, O>[]): Promise<void> => {
    if (batch.length === 1) {
      await runAlone(batch[0] as Pending<I, O>);
      return;
    }
    let outs: O[];
    try {
      outs = await opts.run(batch.map((p) => p.item));
    } catch (err) {
      if (err instanceof BatchItemsFailed) {
        await Promise.all(batch.map(runAlone));
      } else {
        for (const p of batch) {
          p.reject(err);
        }
      }
      return;
    }
    for (const [i, p] of batch.entries()) {
      p.resolve(outs[i] as O);
    }
  };

  const pump = (): void => {
    while (busy < opts.lanes && pending.length > 0) {
      busy++;
      void runBatch(pending.splice(0, opts.maxItems)).finally(() => {
        busy--;
        pump();
      });
    }
  };

  return (item) =>
    new Promise<O>((resolve, reject) => {
      pending.push({ item, resolve, reject });
      pump();
    });
}

/**
 * Awaits every promise, then throws the first rejection (nothing is left running on a handle);
 * answers the values in order.
 */
export async function settleAll<T>(promises: Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(promises);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) {
    throw (failed as PromiseRejectedResult).reason;
  }
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}
