// The fact writer's deadline on ClickHouse calls: one slower than this counts as an outage.

/** Runs a ClickHouse call with a deadline; the call is aborted (and abandoned) when it passes. */
export async function withDeadline<T>(ms: number, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ac = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new Error(`ClickHouse did not answer within ${ms} ms`);
      ac.abort(err);
      reject(err);
    }, ms);
  });
  try {
    return await Promise.race([fn(ac.signal), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
