// postgres.js 3.4.9 reads the server's array types once on every new connection (fetchArrayTypes)
// in a promise that nothing awaits. When the connection drops at that moment (Postgres stopping
// or restarting, a reset) the read fails with the socket's error, say ECONNRESET, and Node exits
// the process on the unhandled rejection: seen as `npm start` exiting 1 when Ctrl-C reached the
// embedded Postgres first. The queries waiting on that connection get the same error and their
// callers handle it; the next query opens a new connection. So only that rejection is let go.
import type { Logger } from 'pino';

/** True for the rejection of postgres.js's own array-type read on a new connection. */
export function isLostTypeFetch(reason: unknown): boolean {
  if (!(reason instanceof Error)) {
    return false;
  }
  // postgres.js puts the failed query's text on the error (a non-enumerable `query`).
  const query = (reason as { query?: unknown }).query;
  return typeof query === 'string' && query.includes('pg_catalog.pg_type') && query.includes('b.typarray');
}

/**
 * Lets the lost type read go with a warning; any other unhandled rejection still ends the process
 * as Node's default does (it is a bug, and the state after it is unknown).
 */
export function guardTypeFetchRejections(log: Logger): void {
  process.on('unhandledRejection', (reason) => {
    if (isLostTypeFetch(reason)) {
      log.warn({ err: String(reason) }, 'postgres connection lost while it opened; the next query reconnects');
      return;
    }
    throw reason;
  });
}
