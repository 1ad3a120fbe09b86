// A ClickHouse client that fails on command, for outage tests (catalog §0: with the engine in-process,
// an outage is injected at the connection boundary). It wraps a real client; every call passes
// through unless a fault is set:
//   down              every call fails as a refused connection would (ping answers success: false)
//   hang              inserts never answer until the caller's abort signal fires; nothing lands
//   hang-then-land    inserts are held (a paused server) and land on release(), whatever the caller
//                     did meanwhile (it may have timed out and retried)
//   land-then-timeout inserts land, then the call fails as a lost answer would
//   land-then-hang    inserts land, then the call never answers (to kill a writer between its
//                     ClickHouse insert and its outbox delete)
// `times` limits a fault to the next n inserts; then calls pass through again.
import type { ClickHouseClient } from '../../src/store/clickhouse/client.ts';

export type ClickHouseFault = 'none' | 'down' | 'hang' | 'hang-then-land' | 'land-then-timeout' | 'land-then-hang';

type InsertParams = Parameters<ClickHouseClient['insert']>[0];
type Held = { params: InsertParams; land: boolean; settle: (err?: unknown) => void };

export type FaultyClickHouse = {
  client: ClickHouseClient;
  set(fault: ClickHouseFault, opts?: { times?: number }): void;
  /** Lets held inserts go: hang-then-land ones land, hang ones fail. Resolves once they settled. */
  release(): Promise<void>;
  /** No fault from now on, and held inserts released. */
  heal(): Promise<void>;
  /** Inserts that reached ClickHouse through this wrapper, and calls that were failed. */
  stats: { landed: number; failed: number; held: number };
};

const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8123'), { code: 'ECONNREFUSED' });
const timedOut = () => new Error('Timeout error.');

export function faultyClickHouse(
  inner: ClickHouseClient,
  opts: { onLanded?: (table: string, rows: number) => void } = {},
): FaultyClickHouse {
  let fault: ClickHouseFault = 'none';
  let remaining = Number.POSITIVE_INFINITY;
  const held: Held[] = [];
  const stats = { landed: 0, failed: 0, held: 0 };

  const realInsert = async (params: InsertParams) => {
    // The abort signal belongs to the caller's request; a landing after it gave up ignores it.
    const r = await inner.insert({ ...params, abort_signal: undefined });
    stats.landed += 1;
    opts.onLanded?.(String(params.table), Array.isArray(params.values) ? params.values.length : 0);
    return r;
  };

  const current = (): ClickHouseFault => {
    if (fault === 'none' || remaining <= 0) {
      return 'none';
    }
    remaining -= 1;
    return fault;
  };

  const insert = async (params: InsertParams) => {
    const f = current();
    switch (f) {
      case 'none':
        return realInsert(params);
      case 'down':
        stats.failed += 1;
        throw refused();
      case 'land-then-timeout':
        await realInsert(params);
        stats.failed += 1;
        throw timedOut();
      case 'land-then-hang':
        await realInsert(params);
        return new Promise<never>(() => {});
      case 'hang':
      case 'hang-then-land':
        stats.held += 1;
        return new Promise<Awaited<ReturnType<ClickHouseClient['insert']>>>((resolve, reject) => {
          const h: Held = {
            params,
            land: f === 'hang-then-land',
            settle: (err) => (err ? reject(err) : resolve(undefined as never)),
          };
          held.push(h);
          params.abort_signal?.addEventListener('abort', () => {
            if (!h.land) {
              held.splice(held.indexOf(h), 1);
              stats.failed += 1;
              reject(timedOut());
            }
          });
        });
    }
  };

  const guard =
    <A extends unknown[], R>(fn: (...a: A) => Promise<R>) =>
    (...a: A): Promise<R> => {
      if (fault === 'down' && remaining > 0) {
        stats.failed += 1;
        return Promise.reject(refused());
      }
      return fn(...a);
    };

  const client = new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'insert') {
        return insert;
      }
      if (prop === 'ping') {
        return async () => (fault === 'down' && remaining > 0 ? { success: false, error: refused() } : target.ping());
      }
      const v = Reflect.get(target, prop, receiver);
      if (typeof v !== 'function') {
        return v;
      }
      const bound = v.bind(target);
      return prop === 'query' || prop === 'command' || prop === 'exec' ? guard(bound) : bound;
    },
  }) as ClickHouseClient;

  const release = async () => {
    const list = held.splice(0);
    await Promise.all(
      list.map(async (h) => {
        if (!h.land) {
          h.settle(refused());
          return;
        }
        try {
          await realInsert(h.params);
          h.settle();
        } catch (err) {
          h.settle(err);
        }
      }),
    );
  };

  return {
    client,
    set(f, o = {}) {
      fault = f;
      remaining = o.times ?? Number.POSITIVE_INFINITY;
    },
    release,
    async heal() {
      fault = 'none';
      await release();
    },
    stats,
  };
}
