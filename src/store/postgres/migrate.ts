// Forward-only Postgres migrations from sql/migrations. A session advisory lock serialises
// concurrent runners (two processes starting at once); each file runs in its own transaction
// and is recorded in schema_migrations.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Sql } from './pool.ts';

export const MIGRATION_LOCK_ID = 7_301_001;

export type MigrationFile = { version: number; name: string; file: string };

export async function listMigrationFiles(dir: string, ext: string): Promise<MigrationFile[]> {
  const names = (await readdir(dir)).filter((n) => n.endsWith(ext)).sort();
  return names.map((name) => {
    const m = /^(\d{4})_.+/.exec(name);
    if (!m) {
      throw new Error(`Migration file name must start with a 4-digit number: ${name}`);
    }
    return { version: Number(m[1]), name, file: path.join(dir, name) };
  });
}

/**
 * Holds a Postgres session advisory lock while fn runs. fn gets the reserved connection that holds
 * the lock, so it needs no second connection from the pool (a pool of one would deadlock).
 */
export async function withAdvisoryLock<T>(sql: Sql, lockId: number, fn: (conn: Sql) => Promise<T>): Promise<T> {
  const conn = await sql.reserve();
  try {
    await conn`SELECT pg_advisory_lock(${lockId})`;
    try {
      return await fn(conn);
    } finally {
      // A connection that died took its lock with it; its error must not hide fn's.
      await conn`SELECT pg_advisory_unlock(${lockId})`.catch(() => {});
    }
  } finally {
    conn.release();
  }
}

/**
 * Throws `lostMessage` unless `conn` still holds advisory lock `lockId` (from withAdvisoryLock). Work
 * done outside Postgres under the lock (ClickHouse migrations) must check: a Postgres restart drops
 * the lock while the work goes on, and a reserved connection that reconnected holds none, so the
 * check reads this backend's own locks (a bigint key shows as classid 0, objid, objsubid 1).
 */
export async function assertLockHeld(conn: Sql, lockId: number, lostMessage: string): Promise<void> {
  const rows = await conn<{ held: boolean }[]>`
    SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid = pg_backend_pid()
      AND classid = 0 AND objid = ${lockId} AND objsubid = 1) AS held`.catch(() => []);
  if (!rows[0]?.held) {
    throw new Error(lostMessage);
  }
}

export async function migratePostgres(sql: Sql, dir: string, log?: Logger): Promise<string[]> {
  const files = await listMigrationFiles(dir, '.sql');
  return withAdvisoryLock(sql, MIGRATION_LOCK_ID, async (sql) => {
    await sql`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`;
    const done = new Set(
      (await sql<{ version: number }[]>`SELECT version FROM schema_migrations`).map((r) => r.version),
    );
    const applied: string[] = [];
    for (const m of files) {
      if (done.has(m.version)) {
        continue;
      }
      const text = await readFile(m.file, 'utf8');
      // A reserved connection has no sql.begin; the transaction is spelled out.
      await sql`BEGIN`;
      try {
        await sql.unsafe(text);
        await sql`INSERT INTO schema_migrations (version, name) VALUES (${m.version}, ${m.name})`;
        await sql`COMMIT`;
      } catch (err) {
        await sql`ROLLBACK`;
        throw new Error(`migration ${m.name} failed: ${(err as Error).message}`);
      }
      log?.info({ migration: m.name }, 'postgres migration applied');
      applied.push(m.name);
    }
    return applied;
  });
}
