// ClickHouse client: over HTTP in service mode (CLICKHOUSE_URL), or the real engine in-process
// through chdb in embedded mode. chdb allows one engine (one path) per process.
import path from 'node:path';
import {
  type ClickHouseClient,
  type ClickHouseClientConfigOptions,
  ClickHouseLogLevel,
  type Logger as ClientLogger,
  createClient,
  type ErrorLogParams,
  type LogParams,
  type WarnLogParams,
} from '@clickhouse/client';
import type { Logger } from 'pino';
import { type Config, StoreSettingError, shownUrl } from '../../config.ts';
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

type ClientLog = NonNullable<ClickHouseClientConfigOptions['log']>;

/**
 * The client's own log, into ours, one JSON line per event. Each failure it logs (a request error,
 * a broken result stream, a stale socket) is also thrown to its caller, which logs what it handles
 * (the fact writer, the job queue, /readyz, the start); at the client's default level each one was
 * printed again, as multi-line text on stderr whatever LOG_LEVEL said (1,663 lines from a worker
 * after a 4 s ClickHouse outage). So its events are debug detail, and the client makes none unless
 * LOG_LEVEL is debug or trace. Its configuration warnings (a setting CLICKHOUSE_URL overrides, made
 * once per client whatever the level) stay warnings.
 */
function clientLog(log: Logger, floor: ClickHouseLogLevel = ClickHouseLogLevel.TRACE): ClientLog {
  const line = (level: 'trace' | 'debug' | 'warn', p: WarnLogParams) =>
    log[level]({ clickhouseClient: p.module, args: p.args, err: p.err }, p.message);
  class ForwardedLog implements ClientLogger {
    trace(p: LogParams) {
      line('trace', p);
    }
    debug(p: LogParams) {
      line('debug', p);
    }
    info(p: LogParams) {
      line('debug', p);
    }
    warn(p: WarnLogParams) {
      line(p.module === 'Config' ? 'warn' : 'debug', p);
    }
    error(p: ErrorLogParams) {
      line('debug', p);
    }
  }
  const level = log.isLevelEnabled('trace')
    ? ClickHouseLogLevel.TRACE
    : log.isLevelEnabled('debug')
      ? ClickHouseLogLevel.DEBUG
      : ClickHouseLogLevel.OFF;
  return { LoggerClass: ForwardedLog, level: Math.max(level, floor) as ClickHouseLogLevel };
}

export async function createEmbeddedClickHouse(dir: string, log?: Logger): Promise<ClickHouseClient> {
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
        ...(log ? { log: clientLog(log) } : {}),
      }),
    ),
  );
}

/** How long a request may wait on a ClickHouse server; `migration` is for migration statements. */
const REQUEST_TIMEOUT_MS = { default: 30_000, migration: 24 * 3600_000 };

function serverClient(server: NonNullable<Config['clickhouse']>, timeoutMs: number, log: Logger): ClickHouseClient {
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
    // So the migration client logs errors only (at debug), never that warning.
    log: clientLog(log, timeoutMs > REQUEST_TIMEOUT_MS.default ? ClickHouseLogLevel.ERROR : ClickHouseLogLevel.TRACE),
  });
}

export async function createClickHouse(config: Config, log: Logger): Promise<ClickHouseClient> {
  if (config.clickhouse) {
    return serverClient(config.clickhouse, REQUEST_TIMEOUT_MS.default, log);
  }
  return createEmbeddedClickHouse(path.join(config.dataDir, 'clickhouse'), log);
}

/**
 * A client for migrations on a ClickHouse server, whose statements may copy a whole table: the
 * timeout is a socket idle timeout, and the server sends nothing until the copy ends (0019's copy of
 * campaign_daily ran past 30 s from ~6 M rows, and every start after that failed the same way).
 * Undefined in embedded mode: chdb has no timeout, and one engine per process.
 */
export function createMigrationClickHouse(config: Config, log: Logger): ClickHouseClient | undefined {
  return config.clickhouse ? serverClient(config.clickhouse, REQUEST_TIMEOUT_MS.migration, log) : undefined;
}

/**
 * Whether ClickHouse serves this process: a server is asked SELECT 1 as the configured user, in the
 * configured database. Its /ping needs neither, and said ok while every query was refused (a
 * rotated password, a dropped database). The embedded engine's ping runs SELECT 1 already.
 */
export async function checkClickHouse(ch: ClickHouseClient, server: boolean): Promise<void> {
  if (!server) {
    const r = await ch.ping();
    if (!r.success) {
      throw r.error;
    }
    return;
  }
  await (await ch.query({ query: 'SELECT 1', format: 'JSONEachRow' })).json();
}

const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * What a failed checkClickHouse at start means, as one line naming the setting to fix (README: "A
 * bad value stops the start with a message that names the setting").
 */
export function clickHouseSettingError(err: unknown, server: NonNullable<Config['clickhouse']>): StoreSettingError {
  const e = err as { code?: unknown; type?: unknown; message?: unknown };
  const code = String(e.code ?? '');
  const said = String(e.message ?? err).split('\n')[0] ?? '';
  const at = `ClickHouse at ${shownUrl(server.url)}`;
  if (code === '516' || code === '194' || e.type === 'AUTHENTICATION_FAILED') {
    return new StoreSettingError(`CLICKHOUSE_USER/CLICKHOUSE_PASSWORD: ${at} refused them: ${said}`, { cause: err });
  }
  if (code === '81' || e.type === 'UNKNOWN_DATABASE') {
    const name = server.database ?? 'default';
    return new StoreSettingError(`CLICKHOUSE_DATABASE: ${at} has no database '${name}': ${said}`, { cause: err });
  }
  const reason = UNREACHABLE.has(code) || /timeout/i.test(said) ? 'nothing answers' : 'it did not answer SELECT 1';
  return new StoreSettingError(`CLICKHOUSE_URL: ${reason} at ${shownUrl(server.url)}: ${said}`, { cause: err });
}
