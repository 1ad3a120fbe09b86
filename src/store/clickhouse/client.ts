// ClickHouse client: over HTTP in service mode (CLICKHOUSE_URL), or the real engine in-process
// through chdb in embedded mode. chdb allows one engine (one path) per process.
import path from 'node:path';
import { type ClickHouseClient, createClient } from '@clickhouse/client';
import type { Config } from '../../config.ts';
import { JSON_HANDLING } from './encoded-row.ts';
import { prioritized } from './priority.ts';

export type { ClickHouseClient };

/**
 * Nice value of the embedded engine's query threads (ClickHouse's os_thread_priority): 10 gives
 * them about a tenth of a core the event loop keeps busy, all of one it leaves idle (bench
 * `reporting-under-ingest`).
 */
export const ENGINE_THREAD_NICE = 10;

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
  // The engine's query threads run in this process next to the event loop: niced, they take the
  // CPU the loop leaves, so a 365-day report or a fact batch no longer delays client requests.
  return prioritized(
    createClient({
      connection,
      json: JSON_HANDLING,
      clickhouse_settings: { os_thread_priority: String(ENGINE_THREAD_NICE) },
    }),
  );
}

export async function createClickHouse(config: Config): Promise<ClickHouseClient> {
  if (config.clickhouse) {
    return createClient({
      url: config.clickhouse.url,
      username: config.clickhouse.username,
      password: config.clickhouse.password,
      database: config.clickhouse.database,
      request_timeout: 30_000,
      json: JSON_HANDLING,
      clickhouse_settings: { date_time_output_format: 'iso' },
    });
  }
  return createEmbeddedClickHouse(path.join(config.dataDir, 'clickhouse'));
}
