// One postgres.js pool per process. Connections are lazy; a dropped connection is re-opened on the
// next query, so a Postgres restart costs failed requests, never a process exit.
import postgres from 'postgres';

export type Sql = postgres.Sql;

export function createPool(url: string, max: number): Sql {
  const sql = postgres(url, {
    max,
    idle_timeout: 30,
    max_lifetime: 60 * 30,
    connect_timeout: 10,
    backoff: (n: number) => Math.min(0.1 * 2 ** n, 1),
    onnotice: () => {},
    transform: { undefined: null },
  });
  // Half the pool commits groups; the rest serves plain queries (lookups outside transactions).
  sql.begin = beginWithGroupCommit(sql, Math.max(1, Math.floor(max / 2)));
  return sql;
}

type TransactionBody = (tx: postgres.TransactionSql) => unknown;

async function runBody(conn: postgres.ReservedSql, body: TransactionBody): Promise<unknown> {
  const x = body(conn as unknown as postgres.TransactionSql);
  return Array.isArray(x) ? Promise.all(x) : x;
}

/**
 * One transaction on a reserved connection. Under load postgres.js 3.4.9 can write a transaction's
 * BEGIN onto a busy connection without reserving it (its pipeline or socket buffer is full), and
 * the request fails with UNSAFE_TRANSACTION (porsager/postgres#823, #1189; found by `npm run bench`:
 * init answered 500 a few times per thousand). reserve() waits for an idle connection instead.
 */
async function runAlone(sql: postgres.Sql, options: string, body: TransactionBody): Promise<unknown> {
  const conn = await sql.reserve();
  let lost = false;
  try {
    await conn.unsafe(`BEGIN ${options.replace(/[^a-z ]/gi, '')}`);
    try {
      const result = await runBody(conn, body);
      await conn`COMMIT`;
      return result;
    } catch (err) {
      lost = connectionLost(err);
      if (!lost) {
        await conn`ROLLBACK`.catch(() => {});
      }
      throw err;
    }
  } catch (err) {
    lost ||= connectionLost(err);
    throw err;
  } finally {
    if (!lost) {
      conn.release();
    }
  }
}

type Waiting = { body: TransactionBody; resolve: (v: unknown) => void; reject: (err: unknown) => void };

/** Bodies committed together at most; a bigger group makes its first request wait longer. */
const MAX_GROUP = 48;

/**
 * sql.begin with group commit. Every commit waits for a WAL flush (~2 ms on our disks), so one
 * transaction per request capped ingest near 500 requests/s whatever the CPU. Bodies that arrive
 * while the lanes are busy are run one after another inside ONE transaction and committed together:
 * one flush for the group, and each caller resumes only after that commit, so a 2xx still means
 * durable. If a body throws, the group rolls back and each body re-runs alone in its own transaction
 * (their effects were discarded, so re-running is safe), which keeps one body's failure its own. A
 * failed COMMIT is not retried: it may have landed, and the callers get the error as before.
 * Bodies must touch only the transaction handle (no other I/O), as with any sql.begin.
 * Transactions with options (isolation levels) always run alone.
 */
function beginWithGroupCommit(sql: postgres.Sql, lanes: number): postgres.Sql['begin'] {
  const waiting: Waiting[] = [];
  let busy = 0;

  const settleAlone = (w: Waiting) => runAlone(sql, '', w.body).then(w.resolve, w.reject);

  const runGroup = async (group: Waiting[]): Promise<void> => {
    if (group.length === 1) {
      await settleAlone(group[0] as Waiting);
      return;
    }
    let conn: postgres.ReservedSql | undefined;
    const results: unknown[] = [];
    try {
      conn = await sql.reserve();
      await conn.unsafe('BEGIN');
      for (const w of group) {
        results.push(await runBody(conn, w.body));
      }
    } catch (err) {
      if (conn && !connectionLost(err)) {
        await conn`ROLLBACK`.catch(() => {});
        conn.release();
      }
      await Promise.all(group.map(settleAlone));
      return;
    }
    try {
      await conn`COMMIT`;
      for (const [i, w] of group.entries()) {
        w.resolve(results[i]);
      }
    } catch (err) {
      for (const w of group) {
        w.reject(err);
      }
      if (!connectionLost(err)) {
        conn.release();
      }
      return;
    }
    conn.release();
  };

  const pump = (): void => {
    while (busy < lanes && waiting.length > 0) {
      busy++;
      void runGroup(waiting.splice(0, MAX_GROUP)).finally(() => {
        busy--;
        pump();
      });
    }
  };

  return ((a: string | TransactionBody, b?: TransactionBody) => {
    const [options, body] = typeof a === 'string' ? [a, b as TransactionBody] : ['', a];
    if (options.trim() !== '') {
      return runAlone(sql, options, body);
    }
    return new Promise((resolve, reject) => {
      waiting.push({ body, resolve: resolve as (v: unknown) => void, reject });
      pump();
    });
  }) as postgres.Sql['begin'];
}

/** Store functions take `Sql`; a transaction handle runs the same tagged queries. */
export function asSql(tx: postgres.TransactionSql): Sql {
  return tx as unknown as Sql;
}

/**
 * The error says the connection itself is gone. postgres.js 3.4.9 has already moved it to its
 * closed list; a query or release() on it puts a socket-less connection back into the pool and
 * the next write throws in a setImmediate, which kills the process.
 */
export function connectionLost(err: unknown): boolean {
  const code = String((err as { code?: unknown })?.code ?? '');
  return /^(CONNECTION_|08|57P0)/.test(code) || code === 'ECONNRESET' || code === 'EPIPE';
}
