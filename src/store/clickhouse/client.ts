// ClickHouse client: over HTTP in service mode (CLICKHOUSE_URL), or the real engine in-process
// through chdb in embedded mode. chdb allows one engine (one path) per process.
import path from 'node:path';
import { type ClickHouseClient, ClickHouseLogLevel, createClient } from '@clickhouse/client';
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
 *
 * A SETTINGS clause, not the client's clickhouse_settings: the embedded engine (chdb) turns those
 * into `SET …` statements run before the query, which cost ~0.3 ms each and stay set for every
 * later statement of the process (a report read would switch compilation off for the views' inserts
 * too). A clause holds for its query alone, on a server as in chdb.
 */
export const REPORT_READ_CLAUSE =
  'SETTINGS compile_expressions = 0, compile_aggregate_expressions = 0, compile_sort_description = 0';

/**
 * The embedded engine keeps each setting a call sends for the rest of the process, the insert dedup
 * token among them: an insert naming no token would take the last one sent (a fact batch's, a
 * migration's), and a second such insert into the same table would be dropped as a duplicate of the
 * first, silently. So every insert and command names a token: the caller's, or empty (ClickHouse's
 * own, a hash of the block). Statements with a token of their own (all fact batches) are unchanged.
 */
function ownDedupTokens(client: ClickHouseClient): ClickHouseClient {
  const withToken = <P extends { clickhouse_settings?: Record<string, unknown> }>(params: P): P => ({
    ...params,
    clickhouse_settings: { insert_deduplication_token: '', ...params.clickhouse_settings },
  });
  return new Proxy(client, {
    get(target, prop, receiver) {
      if (prop === 'insert') {
        return (params: Parameters<ClickHouseClient['insert']>[0]) => target.insert(withToken(params));
      }
      if (prop === 'command') {
        return (params: Parameters<ClickHouseClient['command']>[0]) => target.command(withToken(params));
      }
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

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
  // Sent before every statement. Set once at open instead (the engine keeps a SET for its session),
  // the bench's raw-facts reports ran slower in four runs of four (365-day p50 460-616 ms against
  // 396-442 in four of the five runs alternated with them), for a reason not found; each SET costs
  // ~0.3 ms.
  return prioritized(
    ownDedupTokens(
      createClient({
        connection,
        json: JSON_HANDLING,
        clickhouse_settings: { os_thread_priority: String(ENGINE_THREAD_NICE) },
      }),
    ),
  );
}

/** How long a request may wait on a ClickHouse server; `migration` is for migration statements. */
const REQUEST_TIMEOUT_MS = { default: 30_000, migration: 24 * 3600_000 };

function serverClient(server: NonNullable<Config['clickhouse']>, timeoutMs: number): ClickHouseClient {
  return createClient({
    url: server.url,
    username: server.username,
    password: server.password,
    database: server.database,
    request_timeout: timeoutMs,
    json: JSON_HANDLING,
    clickhouse_settings: { date_time_output_format: 'iso' },
    // The client warns of load balancers at any timeout over 60 s and suggests progress headers;
    // those would commit a 200 before the statement ends, and a migration that failed afterwards
    // could be recorded as applied. README asks for no idle timeout in front of ClickHouse instead.
    ...(timeoutMs > REQUEST_TIMEOUT_MS.default ? { log: { level: ClickHouseLogLevel.ERROR } } : {}),
  });
}

export async function createClickHouse(config: Config): Promise<ClickHouseClient> {
  if (config.clickhouse) {
    return serverClient(config.clickhouse, REQUEST_TIMEOUT_MS.default);
  }
  return createEmbeddedClickHouse(path.join(config.dataDir, 'clickhouse'));
}

/**
 * A client for migrations on a ClickHouse server, whose statements may copy a whole table: the
 * timeout is a socket idle timeout, and the server sends nothing until the copy ends (0019's copy of
 * campaign_daily ran past 30 s from ~6 M rows, and every start after that failed the same way).
 * Undefined in embedded mode: chdb has no timeout, and one engine per process.
 */
export function createMigrationClickHouse(config: Config): ClickHouseClient | undefined {
  return config.clickhouse ? serverClient(config.clickhouse, REQUEST_TIMEOUT_MS.migration) : undefined;
}
