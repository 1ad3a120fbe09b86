// One postgres.js pool per process. Connections are lazy; a dropped connection is re-opened on the
// next query, so a Postgres restart costs failed requests, never a process exit.
import postgres from 'postgres';

export type Sql = postgres.Sql;

export function createPool(url: string, max: number): Sql {
  return postgres(url, {
    max,
    idle_timeout: 30,
    max_lifetime: 60 * 30,
    connect_timeout: 10,
    onnotice: () => {},
    transform: { undefined: null },
  });
}

/** Store functions take `Sql`; a transaction handle runs the same tagged queries. */
export function asSql(tx: postgres.TransactionSql): Sql {
  return tx as unknown as Sql;
}
