// The `fact-writer` workload's process (bench/workloads/fact-writer.ts starts it): chdb opens one
// engine per process, and the bench process may open the service's ClickHouse later, so the writer
// runs here with its own DATA_DIR (embedded Postgres and chdb, set up by createDeps as the service
// does). Steps, each reported on stdout as `STEP <json>` and `RESULT <json>` at the end:
//   1. seed the project, campaigns and installs; put FW_ROWS facts into the outbox in 2,000-row
//      multi-row INSERTs (insertOutboxRows, as the click appender groups them);
//   2. run the real fact writer (jobs/fact-writer.ts) until the outbox is empty: rows/s;
//   3. read system.parts as written, then after OPTIMIZE … FINAL (bytes per fact);
//   4. the ceiling: the same rows as they landed (attribution columns added, fresh fact ids)
//      inserted straight into the same tables with insertFactRows, 10,000 rows per insert.
import { readFileSync, writeFileSync } from 'node:fs';
import { startFactWriter } from '../../jobs/fact-writer.ts';
import { loadConfig } from '../../src/config.ts';
import { closeDeps, createDeps, type Deps } from '../../src/deps.ts';
import { FLUSH_BATCH_ROWS } from '../../src/domain/facts/flush-facts.ts';
import { FACT_ID_COLUMN } from '../../src/domain/facts/tables.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { insertFactRows } from '../../src/store/clickhouse/facts.ts';
import { insertOutboxRows, type OutboxRow } from '../../src/store/postgres/fact-outbox.ts';
import { mergeAll, readStorage } from './ch-storage.ts';
import { type FactState, makeFact, seedFactState } from './fact-rows.ts';
import { descendants, watchCpu } from './layout.ts';
import { createRng } from './seed.ts';

const OUTBOX_INSERT_ROWS = 2000;
const RAW_INSERT_ROWS = 10_000;
const env = process.env;
const n = Number(env.FW_ROWS ?? 20_000);
const seed = Number(env.FW_SEED ?? 42);
const out = (tag: string, x: unknown) => process.stdout.write(`${tag} ${JSON.stringify(x)}\n`);
const factRng = () => createRng((seed ^ 0x5eed) >>> 0);

/** Peak RSS since the last reset, in MB (VmHWM; `reset` clears it through clear_refs when allowed). */
function peakRssMb(reset = false): number {
  try {
    if (reset) {
      writeFileSync('/proc/self/clear_refs', '5');
    }
    const m = readFileSync('/proc/self/status', 'utf8').match(/VmHWM:\s+(\d+) kB/);
    return Number(m?.[1]) / 1024;
  } catch {
    return process.resourceUsage().maxRSS / 1024;
  }
}

async function fillOutbox(deps: Deps, s: FactState): Promise<number> {
  const rng = factRng();
  const t0 = performance.now();
  for (let i = 0; i < n; i += OUTBOX_INSERT_ROWS) {
    const rows: OutboxRow[] = [];
    for (let j = i; j < Math.min(n, i + OUTBOX_INSERT_ROWS); j++) {
      const f = makeFact(s, rng, j, n);
      rows.push({
        table: f.table,
        factId: f.factId,
        projectId: s.projectId,
        row: f.row,
        enrichInstall: f.enrichInstall,
      });
    }
    await insertOutboxRows(deps.sql, rows);
  }
  return (performance.now() - t0) / 1000;
}

async function outboxEmpty(deps: Deps): Promise<boolean> {
  const [r] = await deps.sql<{ any: boolean }[]>`SELECT EXISTS (SELECT 1 FROM fact_outbox) AS any`;
  return r?.any === false;
}

/** The real writer loop, started with the outbox full; timed until the outbox is empty. */
async function runWriter(deps: Deps) {
  const cpu = watchCpu(process.pid);
  const rss0 = peakRssMb(true);
  const t0 = performance.now();
  // The service's own settings (a 1 s interval). A 20 ms interval, used here before so that the
  // first look came sooner, made drained tables due every 20 ms; a free lane, preferring the due
  // table fewer lanes work on, spent its time looking at them instead of taking a second batch of
  // the table with rows, and the writer ran one batch at a time (the writer starts with every
  // table due now, so the first look is immediate anyway).
  const writer = startFactWriter(deps);
  while (!(await outboxEmpty(deps))) {
    await new Promise((r) => setTimeout(r, 50));
  }
  const seconds = (performance.now() - t0) / 1000;
  await writer.stop();
  const use = cpu.stop();
  return {
    seconds,
    rowsPerS: n / seconds,
    writerCores: use.serverCores,
    postgresCores: use.childCores,
    otherCores: use.otherCores,
    /** CPU of the writer process and its Postgres per 1,000 rows (less noisy than rows/s on a shared machine). */
    cpuMsPer1k: ((use.serverCores + use.childCores) * seconds * 1e6) / n,
    rssBeforeMb: rss0,
    peakRssMb: peakRssMb(),
  };
}

async function countRows(deps: Deps): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const t of ['clicks', 'events', 'payments'] as const) {
    const rs = await deps.ch.query({ query: `SELECT toUInt64(count()) AS n FROM ${t}`, format: 'JSONEachRow' });
    counts[t] = Number((await rs.json<{ n: string }>())[0]?.n ?? 0);
  }
  return counts;
}

/** The ceiling: the landed rows with fresh ids, straight into ClickHouse, 10,000 rows per insert. */
async function rawInsert(deps: Deps, s: FactState) {
  const rng = factRng();
  const byTable = new Map<string, Record<string, unknown>[]>();
  for (let i = 0; i < n; i++) {
    const f = makeFact(s, rng, i, n);
    const row = { ...f.row, ...f.enrichment, [FACT_ID_COLUMN[f.table]]: `raw_${f.factId}` };
    const list = byTable.get(f.table) ?? [];
    list.push(row);
    byTable.set(f.table, list);
  }
  const cpu = watchCpu(process.pid);
  const t0 = performance.now();
  let inserts = 0;
  for (const [table, rows] of byTable) {
    for (let i = 0; i < rows.length; i += RAW_INSERT_ROWS) {
      await insertFactRows(deps.ch, table, rows.slice(i, i + RAW_INSERT_ROWS), `raw:${table}:${seed}:${i}`);
      inserts += 1;
    }
  }
  const seconds = (performance.now() - t0) / 1000;
  const use = cpu.stop();
  return {
    seconds,
    rowsPerS: n / seconds,
    inserts,
    cores: use.serverCores,
    cpuMsPer1k: (use.serverCores * seconds * 1e6) / n,
  };
}

async function main(): Promise<void> {
  const config = loadConfig({
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    DATA_DIR: env.FW_DIR,
    EMBEDDED_PG_PORT: env.FW_PG_PORT,
  });
  const deps = await createDeps(config, createLogger('warn'), { migrate: true });
  try {
    out('STEP', { step: 'ready', pid: process.pid, postgres: descendants(process.pid) });
    const state = await seedFactState(deps.sql, createRng(seed), n);
    const fillS = await fillOutbox(deps, state);
    out('STEP', { step: 'filled', rows: n, seconds: fillS });
    const writer = await runWriter(deps);
    const stored = await countRows(deps);
    out('STEP', { step: 'drained', ...writer, stored });
    const written = await readStorage(deps.ch);
    await mergeAll(
      deps.ch,
      written.tables.map((t) => t.table),
    );
    const merged = await readStorage(deps.ch);
    const raw = await rawInsert(deps, state);
    out('RESULT', {
      rows: n,
      batchRows: FLUSH_BATCH_ROWS,
      fillSeconds: fillS,
      writer,
      stored,
      raw,
      storage: { written, merged },
      processPeakRssMb: process.resourceUsage().maxRSS / 1024,
    });
  } finally {
    await closeDeps(deps);
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
