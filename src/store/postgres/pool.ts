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
    onnotice: () => {},
    transform: { undefined: null },
  });
  sql.begin = beginOnReservedConnection(sql);
  return sql;
}

type TransactionBody = (tx: postgres.TransactionSql) => unknown;

/**
 * sql.begin on a connection reserved first. Under load postgres.js 3.4.9 can write a transaction's
 * BEGIN onto a busy connection without reserving it (its pipeline or socket buffer is full), and
 * the request fails with UNSAFE_TRANSACTION (porsager/postgres#823, #1189; found by `npm run bench`:
 * init answered 500 a few times per thousand). reserve() waits for an idle connection instead.
 */
function beginOnReservedConnection(sql: postgres.Sql): postgres.Sql['begin'] {
  return (async (a: string | TransactionBody, b?: TransactionBody) => {
    const [options, body] = typeof a === 'string' ? [a, b as TransactionBody] : ['', a];
    const conn = await sql.reserve();
    try {
      await conn.unsafe(`BEGIN ${options.replace(/[^a-z ]/gi, '')}`);
      try {
        const x = body(conn as unknown as postgres.TransactionSql);
        const result = await (Array.isArray(x) ? Promise.all(x) : x);
        await conn`COMMIT`;
        return result;
      } catch (err) {
        await conn`ROLLBACK`.catch(() => {});
        throw err;
      }
    } finally {
      conn.release();
    }
  }) as postgres.Sql['begin'];
}

/** Store functions take `Sql`; a transaction handle runs the same tagged queries. */
export function asSql(tx: postgres.TransactionSql): Sql {
  return tx as unknown as Sql;
}
