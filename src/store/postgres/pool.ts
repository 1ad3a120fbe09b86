// One postgres.js pool per process. Connections are lazy; a dropped connection is re-opened on the
// next query, so a Postgres restart costs failed requests, never a process exit.
import { setTimeout as sleep } from 'node:timers/promises';
import postgres from 'postgres';
import { StoreSettingError, shownUrl } from '../../config.ts';
import { settleAll } from '../../lib/micro-batch.ts';
import { type SocketTarget, socketFactory } from './connect-socket.ts';
import { reserveConnection } from './reserve-connection.ts';

export type Sql = postgres.Sql;
/** The handle a transaction body gets. */
export type Tx = postgres.TransactionSql;

/**
 * Seconds a connection attempt may take. A handshake with our Postgres (TCP, startup, auth) takes
 * milliseconds even on a loaded 2-core machine; an attempt still unanswered after 3 s will not
 * be answered, and the query behind it should fail (a 503) inside F2's 5 s grace, not at 10 s.
 */
const CONNECT_TIMEOUT_S = 3;

export function createPool(url: string, max: number): Sql {
  // `socket` is a postgres.js option its types leave out (connect-socket.ts says why we set it).
  const socket: (target: SocketTarget) => unknown = socketFactory();
  const sql = postgres(url, {
    max,
    idle_timeout: 30,
    max_lifetime: 60 * 30,
    connect_timeout: CONNECT_TIMEOUT_S,
    backoff: (n: number) => Math.min(0.1 * 2 ** n, 1),
    onnotice: () => {},
    transform: { undefined: null },
    ...({ socket } as object),
  });
  // Half the pool commits groups; the rest serves plain queries (lookups outside transactions).
  const group = groupCommit(sql, Math.max(1, Math.floor(max / 2)));
  sql.begin = group.begin;
  pipelinedRunners.set(sql, group.pipelined);
  return sql;
}

/** Postgres's own refusals that a DATABASE_URL fixes (database, password, role or pg_hba entry). */
const REFUSED = new Set(['3D000', '28P01', '28000']);
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
]);

/**
 * Whether the pool's Postgres serves this process (SELECT 1), for the start: a refusal the URL
 * explains ends in one line naming DATABASE_URL (password masked), the driver's error as its cause.
 */
export async function checkPostgres(sql: Sql, url: string): Promise<void> {
  try {
    await sql`SELECT 1`;
  } catch (err) {
    const code = String((err as { code?: unknown }).code ?? '');
    const said = (err as Error).message;
    if (REFUSED.has(code)) {
      throw new StoreSettingError(`DATABASE_URL: Postgres at ${shownUrl(url)} refused it: ${said}`, { cause: err });
    }
    if (UNREACHABLE.has(code)) {
      throw new StoreSettingError(`DATABASE_URL: nothing answers at ${shownUrl(url)}: ${said}`, { cause: err });
    }
    throw err;
  }
}

type PipelinedRunner = <T>(body: (tx: postgres.TransactionSql) => Promise<T>) => Promise<T>;
const pipelinedRunners = new WeakMap<object, PipelinedRunner>();

/**
 * sql.begin for a body whose statements are each atomic on their own (INSERT … ON CONFLICT, an
 * upsert, a plain insert), so it may interleave with other such bodies in one transaction. The
 * group commit then runs those bodies at once on its connection: their statements travel in one
 * pipeline (a few socket writes and Postgres wake-ups per group instead of one per statement, which
 * is what a request cost here). A body that reads a row and writes it back from what it read (a
 * counter, a state machine) must use sql.begin: two such bodies in one pipeline would both see the
 * old row. On a pool not made by createPool, it is plain sql.begin.
 */
export function beginPipelined<T>(sql: Sql, body: (tx: postgres.TransactionSql) => Promise<T>): Promise<T> {
  const run = pipelinedRunners.get(sql);
  return run ? run(body) : (sql.begin(body) as Promise<T>);
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
 * A transaction Postgres aborted as a deadlock victim or a serialization failure committed nothing
 * and is run again (up to MAX_ATTEMPTS in all): commit groups lock rows in whatever order their
 * bodies come, so two groups, or a group and a lone transaction, touching the same rows (triggers of
 * one user sent at once) can deadlock, and the victim's caller got a 500.
 */
async function runAlone(sql: postgres.Sql, options: string, body: TransactionBody): Promise<unknown> {
  return retryConflicts(() => runAloneOnce(sql, options, body));
}

const MAX_ATTEMPTS = 5;

/** deadlock_detected, serialization_failure: Postgres rolled the transaction (or statement) back. */
export function abortedByConflict(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001';
}

/**
 * Runs `work` again while Postgres aborts it as a deadlock victim or a serialization failure, up to
 * MAX_ATTEMPTS in all, a few jittered ms apart (so the transactions that met do not meet again at
 * once). For a transaction, or for ONE autocommit statement: either committed nothing when it
 * failed so. Not for several autocommit statements in a row (the earlier ones stay committed).
 */
export async function retryConflicts<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (attempt >= MAX_ATTEMPTS || !abortedByConflict(err)) {
        throw err;
      }
      await sleep(attempt * (5 + Math.random() * 20));
    }
  }
}

async function runAloneOnce(sql: postgres.Sql, options: string, body: TransactionBody): Promise<unknown> {
  const conn = await reserveConnection(sql);
  let lost = false;
  try {
    await conn.unsafe(`BEGIN ${options.replace(/[^a-z ]/gi, '')}`);
    try {
      const result = await runBody(conn, body);
      await conn`COMMIT`;
      return result;
    } catch (err) {
      lost = connectionLost(err) || !(await rollBack(conn));
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

/**
 * ROLLBACK; false when the connection turned out to be gone. Such a handle must not be used or
 * released again: postgres.js has put its connection back to reconnect for other queries, and
 * whatever is written on the handle goes onto that new socket ahead of its startup message.
 */
async function rollBack(conn: postgres.ReservedSql): Promise<boolean> {
  try {
    await conn`ROLLBACK`;
    return true;
  } catch (err) {
    return !connectionLost(err);
  }
}

type Waiting = {
  body: TransactionBody;
  /** Declared independent (beginPipelined): runs at once with the group's other such bodies. */
  pipelined: boolean;
  resolve: (v: unknown) => void;
  reject: (err: unknown) => void;
};

/**
 * Runs a group's bodies in one open transaction: the pipelined ones together, then the others one
 * after another. Throws the first body's error once every body has settled, so nothing is still
 * in flight on the connection when the caller rolls back.
 */
async function runGroupBodies(conn: postgres.ReservedSql, group: Waiting[]): Promise<unknown[]> {
  const results: unknown[] = new Array(group.length);
  const piped = group.flatMap((w, i) => (w.pipelined ? [i] : []));
  const values = await settleAll(piped.map((i) => runBody(conn, (group[i] as Waiting).body)));
  for (const [k, i] of piped.entries()) {
    results[i] = values[k];
  }
  for (const [i, w] of group.entries()) {
    if (!w.pipelined) {
      results[i] = await runBody(conn, w.body);
    }
  }
  return results;
}

/** Bodies committed together at most; a bigger group makes its first request wait longer. */
const MAX_GROUP = 48;

/**
 * sql.begin (and beginPipelined) with group commit. Every commit waits for a WAL flush (~2 ms on
 * our disks), so one transaction per request capped ingest near 500 requests/s whatever the CPU.
 * Bodies that arrive while the lanes are busy run inside ONE transaction (sql.begin bodies one
 * after another, beginPipelined bodies at once, see runGroupBodies) and are committed together:
 * one flush for the group, and each caller resumes only after that commit, so a 2xx still means
 * durable. If a body throws, the group rolls back and each body re-runs alone in its own transaction
 * (their effects were discarded, so re-running is safe), which keeps one body's failure its own. A
 * failed COMMIT is not retried: it may have landed, and the callers get the error as before.
 * Bodies must touch only the transaction handle (no other I/O), as with any sql.begin.
 * Transactions with options (isolation levels) always run alone.
 */
function groupCommit(sql: postgres.Sql, lanes: number): { begin: postgres.Sql['begin']; pipelined: PipelinedRunner } {
  const waiting: Waiting[] = [];
  let busy = 0;

  const settleAlone = (w: Waiting) => runAlone(sql, '', w.body).then(w.resolve, w.reject);

  const runGroup = async (group: Waiting[]): Promise<void> => {
    if (group.length === 1) {
      await settleAlone(group[0] as Waiting);
      return;
    }
    let conn: postgres.ReservedSql | undefined;
    let results: unknown[];
    try {
      conn = await reserveConnection(sql);
      await conn.unsafe('BEGIN');
      results = await runGroupBodies(conn, group);
    } catch (err) {
      if (conn && !connectionLost(err) && (await rollBack(conn))) {
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

  const enqueue = (body: TransactionBody, pipelined: boolean) =>
    new Promise((resolve, reject) => {
      waiting.push({ body, pipelined, resolve, reject });
      pump();
    });

  const begin = ((a: string | TransactionBody, b?: TransactionBody) => {
    const [options, body] = typeof a === 'string' ? [a, b as TransactionBody] : ['', a];
    if (options.trim() !== '') {
      return runAlone(sql, options, body);
    }
    return enqueue(body, false);
  }) as postgres.Sql['begin'];
  const pipelined = (<T>(body: (tx: postgres.TransactionSql) => Promise<T>) =>
    enqueue(body, true) as Promise<T>) as PipelinedRunner;
  return { begin, pipelined };
}

/** Store functions take `Sql`; a transaction handle runs the same tagged queries. */
export function asSql(tx: postgres.TransactionSql): Sql {
  return tx as unknown as Sql;
}

/**
 * The error says the connection itself is gone (or never came: a reserved handle whose socket
 * died is reconnected by the pool, and its next query fails with that attempt's error). postgres.js
 * 3.4.9 has already moved it to its closed list; a query or release() on it puts a socket-less
 * connection back into the pool and the next write throws in a setImmediate, which kills the process.
 */
export function connectionLost(err: unknown): boolean {
  const code = String((err as { code?: unknown })?.code ?? '');
  return /^(CONNECTION_|CONNECT_TIMEOUT$|08|57P0)/.test(code) || SOCKET_GONE.has(code);
}

const SOCKET_GONE = new Set(['ECONNRESET', 'EPIPE', 'ECONNREFUSED', 'ETIMEDOUT', 'ECONNABORTED', 'EHOSTUNREACH']);
