// Forward-only ClickHouse migrations from clickhouse/migrations, recorded in a CH schema_migrations
// table. Statements are split on a line-final ';'. Concurrent runners are serialised by a Postgres
// advisory lock (every process shares Postgres); each statement is written to be re-runnable.
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { assertLockHeld, listMigrationFiles, withAdvisoryLock } from '../postgres/migrate.ts';
import type { Sql } from '../postgres/pool.ts';
import type { ClickHouseClient } from './client.ts';

export const CH_MIGRATION_LOCK_ID = 7_301_002;

export function splitStatements(text: string): string[] {
  return text
    .split(/;[ \t]*(?:\r?\n|$)/)
    .map((s) => s.trim())
    .filter((s) => s.replace(/--.*$/gm, '').trim() !== '');
}

// ClickHouse DDL runs outside Postgres: a Postgres restart during a long migration (0019's copies)
// dropped the lock while the runner went on, and a process starting then could run the same
// migration beside it. So the runner checks, before each statement and before recording, that it
// still holds the lock.
const LOCK_LOST =
  'the ClickHouse migration lock was lost (Postgres restarted?); stopping so that no other runner applies it alongside. Start again.';

async function applyPending(
  ch: ClickHouseClient,
  dir: string,
  log?: Logger,
  stillLocked: () => Promise<void> = async () => {},
): Promise<string[]> {
  await ch.command({
    query: `CREATE TABLE IF NOT EXISTS schema_migrations (version UInt32, name String, applied_at DateTime DEFAULT now())
      ENGINE = MergeTree ORDER BY version`,
  });
  const rows = await (await ch.query({ query: 'SELECT version FROM schema_migrations', format: 'JSONEachRow' })).json<{
    version: number;
  }>();
  const done = new Set(rows.map((r) => Number(r.version)));
  const applied: string[] = [];
  for (const m of await listMigrationFiles(dir, '.sql')) {
    if (done.has(m.version)) {
      continue;
    }
    for (const statement of splitStatements(await readFile(m.file, 'utf8'))) {
      await stillLocked();
      await ch.command({ query: statement });
    }
    await stillLocked();
    await ch.insert({
      table: 'schema_migrations',
      values: [{ version: m.version, name: m.name }],
      format: 'JSONEachRow',
      // chdb keeps settings of earlier statements in its session: an explicit token per migration
      // means an inherited fact-batch token can never swallow this row.
      clickhouse_settings: { insert_deduplication_token: `schema_migrations:${m.version}` },
    });
    log?.info({ migration: m.name }, 'clickhouse migration applied');
    applied.push(m.name);
  }
  return applied;
}

export async function migrateClickHouse(ch: ClickHouseClient, dir: string, sql?: Sql, log?: Logger): Promise<string[]> {
  if (!sql) {
    return applyPending(ch, dir, log);
  }
  return withAdvisoryLock(sql, CH_MIGRATION_LOCK_ID, (conn) =>
    applyPending(ch, dir, log, () => assertLockHeld(conn, CH_MIGRATION_LOCK_ID, LOCK_LOST)),
  );
}
