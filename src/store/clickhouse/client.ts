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

/**
 * Report reads run without ClickHouse's JIT compilation of expressions. The engine compiles an
 * expression the third time it sees one, inside the query that sees it, and that query stalls: a
 * page of 25 campaigns read alone eight times took 300-700 ms per run, and 1,241 and 2,051 ms for
 * the run that compiled; without compilation 380-630 ms and no stall. In the bench `reporting` that
 * stall was the 30-day p99 of every repetition (the second request after start). Compiled code
 * made no report faster.
 */
export const REPORT_READ_SETTINGS = {
  compile_expressions: 0,
  compile_aggregate_expressions: 0,
  compile_sort_description: 0,
} as const;

/**
 * The engine's defaults, named by the fact inserts: chdb keeps a statement's settings for the
 * statements after it, so without them a report would switch compilation off for the materialized
 * views' inserts too. Not kept off there: the bench `fact-writer`'s raw insert used 63-68 ms of CPU
 * per 1,000 rows with compilation off against 52-59 with it (two runs each: noise, or not).
 */
export const FACT_INSERT_COMPILATION = {
  compile_expressions: 1,
  compile_aggregate_expressions: 1,
  compile_sort_description: 1,
} as const;

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
