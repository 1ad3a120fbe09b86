// The pool (pool.ts) while Postgres is away or coming back (catalog F2). postgres.js 3.4.9 left two
// waits without end: a query on a server that accepts and closes at once (it reconnects forever,
// connect-socket.ts), and a transaction whose reserve() was taken up by a reconnecting connection
// just as Postgres came back (the pool drops it, reserve-connection.ts). Postgres here is the run's
// own, reached through a loopback proxy the test starts on a port that first refuses.
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createPool, type Sql } from '../../src/store/postgres/pool.ts';
import { processDatabaseUrl } from '../support/harness.ts';
import { freePort } from '../support/processes.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) {
    await c().catch(() => {});
  }
});

/** A pool on 127.0.0.1:port with the run's Postgres credentials and database (embedded mode has a password). */
async function pool(port: number, max: number): Promise<Sql> {
  const url = new URL(await processDatabaseUrl());
  url.hostname = '127.0.0.1';
  url.port = String(port);
  const sql = createPool(url.toString(), max);
  cleanups.push(() => sql.end({ timeout: 0 }));
  return sql;
}

type Outcome<T> = { ok: T } | { err: unknown };

function outcome<T>(p: Promise<T>): Promise<Outcome<T>> {
  return p.then(
    (ok) => ({ ok }),
    (err: unknown) => ({ err }),
  );
}

/** The outcome, or 'still waiting' after ms. */
function within<T>(ms: number, p: Promise<Outcome<T>>): Promise<Outcome<T> | 'still waiting'> {
  return Promise.race([p, new Promise<'still waiting'>((r) => setTimeout(() => r('still waiting'), ms))]);
}

describe('Postgres pool while the server is away', () => {
  it('when the server accepts each connection and closes it at once, then a query fails with CONNECTION_CLOSED instead of retrying forever', async () => {
    // Arrange: a listener standing in for a proxy whose Postgres is gone
    const server: Server = createServer((c) => c.destroy());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise((r) => server.close(r)));
    const address = server.address();
    const sql = await pool(typeof address === 'object' && address ? address.port : 0, 1);

    // Act
    const result = await within(5_000, outcome(sql`SELECT 1`));

    // Assert
    expect(result).toMatchObject({ err: { code: 'CONNECTION_CLOSED' } });
  });

  it('when a transaction waits for a connection while Postgres refuses and Postgres comes back, then it commits within a second', async () => {
    // Arrange: both connections fail to connect, the transaction's reserve() queued behind them
    const target = new URL(await processDatabaseUrl());
    const port = await freePort();
    const sql = await pool(port, 2);
    const refused = Promise.allSettled([sql`SELECT 1`, sql`SELECT 2`]);
    await new Promise((r) => setImmediate(r));
    const tx = outcome(sql.begin((t) => t`SELECT 3 AS x`));

    // Act: Postgres is reachable again right after the refusals
    await refused;
    const proxy: TcpProxy = await startTcpProxy(target.hostname, Number(target.port || 5432), port);
    cleanups.push(() => proxy.close());
    const result = await within(1_500, tx);

    // Assert
    expect(result).toEqual({ ok: [{ x: 3 }] });
  });
});
