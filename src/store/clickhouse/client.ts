// ClickHouse client: over HTTP in service mode (CLICKHOUSE_URL), or the real engine in-process
// through chdb in embedded mode. chdb allows one engine (one path) per process.
import path from 'node:path';
import { type ClickHouseClient, createClient } from '@clickhouse/client';
import type { Config } from '../../config.ts';
import { prioritized } from './priority.ts';

export type { ClickHouseClient };

export async function createEmbeddedClickHouse(dir: string): Promise<ClickHouseClient> {
  let mod: typeof import('chdb/connection');
  try {
    mod = await import('chdb/connection');
  } catch (err) {
    throw new Error(
      `Embedded mode needs the optional package 'chdb' (npm install without --omit=optional), or set CLICKHOUSE_URL. ${String(err)}`,
    );
  }
  // chdb builds against its own copy of @clickhouse/client-common; the shapes match at runtime.
  const connection = mod.createChdbConnection({ path: dir }) as unknown as NonNullable<
    Parameters<typeof createClient>[0]
  >['connection'];
  return prioritized(createClient({ connection }));
}

export async function createClickHouse(config: Config): Promise<ClickHouseClient> {
  if (config.clickhouse) {
    return createClient({
      url: config.clickhouse.url,
      username: config.clickhouse.username,
      password: config.clickhouse.password,
      database: config.clickhouse.database,
      request_timeout: 30_000,
      clickhouse_settings: { date_time_output_format: 'iso' },
    });
  }
  return createEmbeddedClickHouse(path.join(config.dataDir, 'clickhouse'));
}
