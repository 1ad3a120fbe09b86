// Who is using the embedded Postgres. Every process that starts or adopts it (server, CLI) keeps one
// connection named `attribution:<kind>:<pid>` (application_name) for as long as it uses it, and the
// one about to stop Postgres first asks pg_stat_activity whether another such process is still
// there. The pools cannot tell: their connections close when idle. Taken and asked under
// DATA_DIR/postgres.lock (embedded-lock.ts), so a process adopting Postgres is always seen by one
// deciding to stop it.
import postgres from 'postgres';

export type EmbeddedClient = 'server' | 'cli' | 'test';

export type Presence = {
  /** application_name of the other attribution processes connected now (throws if it cannot ask). */
  others: () => Promise<string[]>;
  /** Stops being counted at once (before the connection has gone), then closes it. */
  leave: () => Promise<void>;
};

const PREFIX = 'attribution:';
/** Re-opens the connection if Postgres dropped it, so the process is counted again soon. */
const PING_MS = 5_000;

export async function joinPresence(url: string, kind: EmbeddedClient): Promise<Presence> {
  const sql = postgres(url, {
    max: 1,
    idle_timeout: 0,
    max_lifetime: null,
    connect_timeout: 3,
    fetch_types: false,
    onnotice: () => {},
    connection: { application_name: `${PREFIX}${kind}:${process.pid}` },
  });
  await sql`SELECT 1`;
  const ping = setInterval(() => {
    sql`SELECT 1`.catch(() => {});
  }, PING_MS);
  ping.unref();
  return {
    others: async () => {
      const rows = await sql<{ name: string }[]>`
        SELECT application_name AS name FROM pg_stat_activity
        WHERE application_name LIKE ${`${PREFIX}%`} AND pid <> pg_backend_pid()`;
      return rows.map((r) => r.name);
    },
    leave: async () => {
      clearInterval(ping);
      // The backend leaves pg_stat_activity a moment after the connection closes; renamed, it stops counting now.
      await sql`SELECT set_config('application_name', 'attribution-leaving', false)`.catch(() => {});
      await sql.end({ timeout: 2 }).catch(() => {});
    },
  };
}

/**
 * For a process about to exit without leaving properly (a forced exit): the attribution processes
 * other than this one using the Postgres at `url`, asked on a connection of its own (the presence
 * connection may be closing). Throws if it cannot ask within a few seconds.
 */
export async function otherProcessesOn(url: string): Promise<string[]> {
  const sql = postgres(url, {
    max: 1,
    connect_timeout: 2,
    idle_timeout: 1,
    fetch_types: false,
    onnotice: () => {},
    connection: { application_name: 'attribution-exiting', statement_timeout: 2_000 },
  });
  try {
    const rows = await sql<{ name: string }[]>`
      SELECT application_name AS name FROM pg_stat_activity
      WHERE application_name LIKE ${`${PREFIX}%`} AND application_name NOT LIKE ${`%:${process.pid}`}`;
    return rows.map((r) => r.name);
  } finally {
    await sql.end({ timeout: 1 }).catch(() => {});
  }
}
