// Postgres clients for tests that put something else at an exact point of a job: a tagged statement
// that waits (pausingSql), a transaction that waits at its start or before its COMMIT (gatedBegin),
// and a wait until some backend waits for a lock.
import type { Deps } from '../../src/deps.ts';

/**
 * deps.sql, except that the `nth` (default first) tagged statement whose text matches `pattern` waits until
 * `open()`; `reached` resolves when it starts waiting. Everything else goes straight through.
 */
export function pausingSql(sql: Deps['sql'], pattern: RegExp, nth = 1) {
  let reached!: () => void;
  const reachedP = new Promise<void>((r) => {
    reached = r;
  });
  let open!: () => void;
  const openP = new Promise<void>((r) => {
    open = r;
  });
  let seen = 0;
  const proxy = new Proxy(sql, {
    apply(target, thisArg, args: unknown[]) {
      const strings = args[0];
      if (
        Array.isArray(strings) &&
        'raw' in strings &&
        pattern.test((strings as string[]).join('?')) &&
        ++seen === nth
      ) {
        reached();
        return openP.then(() => Reflect.apply(target as never, thisArg, args));
      }
      return Reflect.apply(target as never, thisArg, args);
    },
  });
  return { sql: proxy as Deps['sql'], reached: reachedP, open };
}

/**
 * deps.sql, except that the first transaction (sql.begin, and beginPipelined on this pool) waits
 * until `open()`: before its body when `at` is 'start', or after its body, before COMMIT (its row
 * locks held), when `at` is 'commit'. `reached` resolves when it starts waiting.
 */
export function gatedBegin(sql: Deps['sql'], at: 'start' | 'commit') {
  let reached!: () => void;
  const reachedP = new Promise<void>((r) => {
    reached = r;
  });
  let open!: () => void;
  const openP = new Promise<void>((r) => {
    open = r;
  });
  let used = false;
  const proxy = new Proxy(sql, {
    get(target, prop, receiver) {
      if (prop !== 'begin' || used) {
        return Reflect.get(target, prop, receiver);
      }
      return (...args: unknown[]) => {
        used = true;
        const body = args.at(-1) as (tx: unknown) => Promise<unknown>;
        const gated = async (tx: unknown) => {
          if (at === 'start') {
            reached();
            await openP;
            return body(tx);
          }
          const result = await body(tx);
          reached();
          await openP;
          return result;
        };
        return (target.begin as (...a: unknown[]) => Promise<unknown>)(...args.slice(0, -1), gated);
      };
    },
  });
  return { sql: proxy as Deps['sql'], reached: reachedP, open };
}

/** Resolves once some Postgres backend waits for a lock (false after `ms` without one). */
export async function someoneWaitsForALock(sql: Deps['sql'], ms = 5000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const [r] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted`;
    if ((r?.n ?? 0) > 0) {
      return true;
    }
    await new Promise((res) => setTimeout(res, 25));
  }
  return false;
}
