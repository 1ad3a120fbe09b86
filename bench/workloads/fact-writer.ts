// Workload `fact-writer`: how fast the fact writer moves facts from the Postgres outbox into
// ClickHouse, next to a raw insert of the same rows, and what ClickHouse keeps per fact. It runs in
// a process of its own (bench/lib/fact-writer-child.ts: chdb opens one engine per process) with a
// fresh DATA_DIR, embedded Postgres and chdb, pinned like the service (writer on the server CPU,
// its Postgres on the load CPU). It does not use the service under test, and always runs embedded:
// in service mode the service's own writer would take rows from a shared outbox.
// - 200,000 facts (--quick: 20,000): events 55 %, clicks 30 %, payments 15 %, shaped like the
//   service's rows, put into the outbox in 2,000-row INSERTs (not over HTTP: only the writer is timed).
// - writer rows/s: the real loop (jobs/fact-writer.ts: claim, enrich events and payments from
//   installs, insert with a dedup token, delete; 10,000-row batches) until the outbox is empty.
// - ceiling: the same rows as they landed, with fresh fact ids, inserted straight into the same
//   tables with the same client call (insertFactRows, JSONEachRow), 10,000 rows per insert.
// - bytes per fact: system.parts, active parts, after OPTIMIZE … FINAL (as written: in details).
import { existsSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../../src/lib/paths.ts';
import type { Storage } from '../lib/ch-storage.ts';
import { startNodeChild, stopChild, tail } from '../lib/child.ts';
import { descendants, pinProcess } from '../lib/layout.ts';
import { freePort } from '../lib/ports.ts';
import { round } from '../lib/stats.ts';
import type { Workload } from '../lib/workload.ts';

const TIMEOUT_MS = 600_000;
const BYTES_TARGET = { on: 'value', atMost: 40, text: '≤ 40 bytes per fact' } as const;

type Result = {
  rows: number;
  batchRows: number;
  fillSeconds: number;
  writer: {
    seconds: number;
    rowsPerS: number;
    writerCores: number;
    postgresCores: number;
    otherCores: number;
    cpuMsPer1k: number;
    peakRssMb: number;
  };
  stored: Record<string, number>;
  raw: { seconds: number; rowsPerS: number; inserts: number; cores: number; cpuMsPer1k: number };
  storage: { written: Storage; merged: Storage };
  processPeakRssMb: number;
};

/** The child's Postgres outlives a killed child: stop it by its pid file (it is ours). */
function stopOrphanPostgres(dir: string): void {
  const file = path.join(dir, 'postgres', 'postmaster.pid');
  const pid = existsSync(file) ? Number(readFileSync(file, 'utf8').split('\n')[0]) : Number.NaN;
  if (Number.isInteger(pid) && pid > 0) {
    try {
      process.kill(pid, 'SIGINT');
    } catch {
      // already gone
    }
  }
}

const perTable = (s: Storage) =>
  Object.fromEntries(s.tables.map((t) => [t.table, { rows: t.rows, bytes: t.bytes, parts: t.parts }]));

export const workload: Workload = {
  name: 'fact-writer',
  summary: 'fact writer (outbox → ClickHouse) rows/s vs a raw insert of the same rows; ClickHouse bytes per fact',
  order: 50,
  metrics: [
    {
      id: 'rows_per_s',
      label: 'fact writer rows/s',
      unit: 'row/s',
      better: 'higher',
      ceiling: 'raw insert, same rows, 10k-row inserts',
      target: { on: 'ratio', atLeast: 0.8, text: '≥ 0.80× raw insert' },
    },
    {
      id: 'stored',
      label: 'facts stored by the writer',
      unit: 'facts',
      better: 'higher',
      ceiling: 'facts in the outbox',
      target: { on: 'ratio', atLeast: 1, atMost: 1, text: 'all, once (1.00)' },
    },
    {
      id: 'bytes_raw',
      label: 'bytes per row, raw tables (merged)',
      unit: 'B',
      better: 'lower',
      target: BYTES_TARGET,
    },
    {
      id: 'bytes_all',
      label: 'bytes per fact, with view targets (merged)',
      unit: 'B',
      better: 'lower',
      target: BYTES_TARGET,
    },
    {
      id: 'rss_writer',
      label: 'peak RSS, writer process (writer + chdb)',
      unit: 'MB',
      better: 'lower',
      target: { on: 'value', atMost: 1024, text: '≤ 1 GB per process' },
    },
  ],
  async run(h) {
    const rows = h.quick ? 20_000 : 200_000;
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'attribution-fact-writer-'));
    // Embedded Postgres runs as the 'postgres' user when we are root; it must reach the directory.
    await fs.chmod(dir, 0o755);
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      FW_DIR: dir,
      FW_PG_PORT: String(await freePort()),
      FW_ROWS: String(rows),
      FW_SEED: String(h.rng('facts').int(2 ** 31)),
    };
    const script = path.join(ROOT, 'bench', 'lib', 'fact-writer-child.ts');
    const child = startNodeChild('fact-writer', script, env, h.layout.serverCpu);
    let r: Result;
    try {
      await child.waitForOutput(/^STEP .*"ready"/m, 120_000);
      if (h.layout.pinned && h.layout.loadCpu !== undefined) {
        for (const pid of descendants(child.pid)) {
          pinProcess(pid, h.layout.loadCpu);
        }
      }
      const m = await child.waitForOutput(/^RESULT (.*)$/m, TIMEOUT_MS);
      r = JSON.parse(String(m[1])) as Result;
      const exit = await child.exited;
      if (exit.code !== 0) {
        throw new Error(`fact-writer child exited with ${exit.code ?? exit.signal}${tail(child.output())}`);
      }
    } catch (err) {
      await stopChild(child, 20_000);
      stopOrphanPostgres(dir);
      throw err;
    } finally {
      await fs.rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    }
    const w = r.writer;
    const stored = Object.values(r.stored).reduce((s, x) => s + x, 0);
    const { written, merged } = r.storage;
    h.progress(
      `fact-writer: ${rows} facts; writer ${round(w.rowsPerS, 0)} rows/s in ${round(w.seconds, 1)} s (cpu cores: writer ${round(w.writerCores, 2)}, postgres ${round(w.postgresCores, 2)}, other processes ${round(w.otherCores, 2)}; ${round(w.cpuMsPer1k, 0)} cpu-ms per 1k rows); raw insert ${round(r.raw.rowsPerS, 0)} rows/s (${round(r.raw.cpuMsPer1k, 0)} cpu-ms per 1k rows); ratio ${round(w.rowsPerS / r.raw.rowsPerS, 2)}`,
    );
    h.progress(
      `fact-writer: bytes per fact as written ${round(written.rawBytesPerRow, 1)} raw / ${round(written.allBytesPerFact, 1)} all; merged ${round(merged.rawBytesPerRow, 1)} raw / ${round(merged.allBytesPerFact, 1)} all; peak RSS ${round(w.peakRssMb, 0)} MB in the writer run`,
    );
    return {
      measures: {
        rows_per_s: { value: w.rowsPerS, ceiling: r.raw.rowsPerS },
        stored: { value: stored, ceiling: rows },
        bytes_raw: { value: merged.rawBytesPerRow },
        bytes_all: { value: merged.allBytesPerFact },
        rss_writer: { value: w.peakRssMb },
      },
      details: {
        rows,
        writer_batch_rows: r.batchRows,
        outbox_fill_s: round(r.fillSeconds, 2),
        writer: { ...w, seconds: round(w.seconds, 2) },
        raw_insert: r.raw,
        stored_by_table: r.stored,
        bytes_as_written: { raw_per_row: written.rawBytesPerRow, all_per_fact: written.allBytesPerFact },
        tables_as_written: perTable(written),
        tables_merged: perTable(merged),
        /** Compressed bytes per row of each raw table's columns after the merge (wide parts only). */
        columns_merged: merged.columns,
        process_peak_rss_mb: round(r.processPeakRssMb, 0),
      },
    };
  },
};
