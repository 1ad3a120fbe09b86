// Running one ClickHouse migration file again, as a runner re-running it after a crash would (its
// statements are written to be re-runnable), for the migration tests.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CH_MIGRATIONS } from '../../src/lib/paths.ts';
import type { ClickHouseClient } from '../../src/store/clickhouse/client.ts';
import { splitStatements } from '../../src/store/clickhouse/migrate.ts';

/** Runs every statement of clickhouse/migrations/<fileName> in order. */
export async function rerunChMigration(ch: ClickHouseClient, fileName: string): Promise<void> {
  const file = path.join(CH_MIGRATIONS, fileName);
  for (const statement of splitStatements(await readFile(file, 'utf8'))) {
    await ch.command({ query: statement });
  }
}
