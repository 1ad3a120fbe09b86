// What the service stored, read by the bench itself: the Postgres fact outbox (is the writer done?)
// and the ClickHouse `clicks` table. In embedded mode the service owns chdb, and chdb opens a data
// directory in one process only, so ClickHouse is read after the service has stopped, from the same
// DATA_DIR; in service mode CLICKHOUSE_URL is queried directly.
import path from 'node:path';
import { type ClickHouseClient, createClient } from '@clickhouse/client';
import postgres from 'postgres';
import { createEmbeddedClickHouse } from '../../src/store/clickhouse/client.ts';
import type { RunningService } from './service.ts';

export type DrainReport = {
  drained: boolean;
  seconds: number;
  /** Rows still in the fact outbox, and installs still waiting for their attribution, at the end. */
  outbox: number;
  pendingInstalls: number;
  deadLettered: number;
};

/**
 * Waits until the project's backlog is gone: no install waiting for attribution and no row left in
 * the fact outbox (all moved to ClickHouse or dead-lettered). A workload waits for this before the
 * next one starts, so no workload shares the CPU with the previous one's leftovers.
 */
export async function waitForBacklog(pgUrl: string, projectId: string, timeoutMs: number): Promise<DrainReport> {
  const sql = postgres(pgUrl, { max: 1, onnotice: () => {} });
  const t0 = performance.now();
  try {
    let outbox = Number.NaN;
    let pendingInstalls = Number.NaN;
    while (performance.now() - t0 < timeoutMs) {
      const [r] = await sql<{ outbox: number; pending: number }[]>`
        SELECT (SELECT count(*)::int FROM fact_outbox WHERE project_id = ${projectId}) AS outbox,
          (SELECT count(*)::int FROM installs WHERE project_id = ${projectId} AND attribution_status = 'pending') AS pending`;
      outbox = r?.outbox ?? 0;
      pendingInstalls = r?.pending ?? 0;
      if (outbox === 0 && pendingInstalls === 0) {
        break;
      }
      await new Promise((res) => setTimeout(res, 250));
    }
    const [d] = await sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM fact_dead_letters WHERE project_id = ${projectId}`;
    return {
      drained: outbox === 0 && pendingInstalls === 0,
      seconds: (performance.now() - t0) / 1000,
      outbox,
      pendingInstalls,
      deadLettered: d?.n ?? 0,
    };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

export type ClickCount = { rows: number; unique: number };

export type FactsReader = {
  /** Rows and distinct click ids in `clicks`, per display id, for one project. */
  clicksByDisplayId: (projectId: string) => Promise<Map<string, ClickCount>>;
  /** Rows and distinct `column` values in `table` whose `column` starts with `prefix` (minus `except`), for one project. */
  countByPrefix: (
    table: 'events' | 'payments' | 'uninstalls',
    column: string,
    projectId: string,
    prefix: string,
    except?: string[],
  ) => Promise<ClickCount>;
  close: () => Promise<void>;
};

async function openClient(svc: Pick<RunningService, 'mode' | 'dataDir'>): Promise<ClickHouseClient> {
  if (svc.mode === 'embedded') {
    return createEmbeddedClickHouse(path.join(svc.dataDir, 'clickhouse'));
  }
  return createClient({
    url: process.env.CLICKHOUSE_URL,
    username: process.env.CLICKHOUSE_USER,
    password: process.env.CLICKHOUSE_PASSWORD,
    database: process.env.CLICKHOUSE_DATABASE,
  });
}

export async function openFactsReader(svc: Pick<RunningService, 'mode' | 'dataDir'>): Promise<FactsReader> {
  const ch = await openClient(svc);
  return {
    clicksByDisplayId: async (projectId) => {
      const rs = await ch.query({
        query: `SELECT display_id, toUInt32(count()) AS rows, toUInt32(uniqExact(click_id)) AS uniq
          FROM clicks WHERE project_id = {p:String} GROUP BY display_id`,
        format: 'JSONEachRow',
        query_params: { p: projectId },
      });
      const rows = await rs.json<{ display_id: string; rows: number; uniq: number }>();
      return new Map(rows.map((r) => [r.display_id, { rows: Number(r.rows), unique: Number(r.uniq) }]));
    },
    countByPrefix: async (table, column, projectId, prefix, except = []) => {
      if (!/^[a-z_]+$/.test(column)) {
        throw new Error(`bad column ${column}`);
      }
      const rs = await ch.query({
        query: `SELECT toUInt32(count()) AS rows, toUInt32(uniqExact(${column})) AS uniq
          FROM ${table} WHERE project_id = {p:String} AND startsWith(${column}, {prefix:String})
          AND NOT has({except:Array(String)}, ${column})`,
        format: 'JSONEachRow',
        query_params: { p: projectId, prefix, except },
      });
      const [r] = await rs.json<{ rows: number; uniq: number }>();
      return { rows: Number(r?.rows ?? 0), unique: Number(r?.uniq ?? 0) };
    },
    close: () => ch.close(),
  };
}
