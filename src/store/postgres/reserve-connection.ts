// sql.reserve() with a bound. In postgres.js 3.4.9 a reserve() made while every connection is
// (re)connecting waits in the pool's queue; when a connection whose attempt failed takes it from
// there as the first query of its next attempt and that attempt succeeds, the pool drops it and
// the promise never settles (probe: after `pg_ctl restart -m immediate` under load, 1 to 3 of the 5
// group-commit lanes waited for good). So a wait longer than ASK_AGAIN_MS asks again, the first
// connection to arrive is used and any later one released at once, and past DEADLINE_MS the
// caller gets CONNECT_TIMEOUT (a 503) rather than waiting forever.
import type postgres from 'postgres';

/** A reserve() is answered in milliseconds unless every connection is busy or Postgres is away. */
const ASK_AGAIN_MS = 500;
const DEADLINE_MS = 10_000;

export function reserveConnection(sql: postgres.Sql): Promise<postgres.ReservedSql> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    const settle = (fn: () => void) => {
      settled = true;
      for (const t of timers) {
        clearTimeout(t);
      }
      fn();
    };
    const ask = () => {
      sql.reserve().then(
        (conn) => (settled ? conn.release() : settle(() => resolve(conn))),
        (err: unknown) => settled || settle(() => reject(err)),
      );
    };
    const askAgain = () => {
      if (!settled) {
        ask();
        timers[0] = setTimeout(askAgain, ASK_AGAIN_MS);
      }
    };
    const deadline = () => {
      const err = Object.assign(new Error(`no Postgres connection within ${DEADLINE_MS} ms`), {
        code: 'CONNECT_TIMEOUT',
      });
      settle(() => reject(err));
    };
    timers[1] = setTimeout(deadline, DEADLINE_MS);
    ask();
    timers[0] = setTimeout(askAgain, ASK_AGAIN_MS);
  });
}
