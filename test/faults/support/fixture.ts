// One fault test's world: a private Postgres (and Redis when asked), a temp DATA_DIR for the
// embedded ClickHouse, the service as a child process on a free port, and the steps every test
// ends with (drain, stop, count, print the JSON line, judge). close() stops only what it started.
// The service's output goes to a log file under os.tmpdir() (its path is in the JSON line and in a
// failure's message): the error behind a 503 is only written there; the private Postgres logs next
// to it. The logs of a test that passed are removed when it ends, unless FAULTS_KEEP_LOGS=1.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import postgres, { type Sql } from 'postgres';
import { onTestFinished } from 'vitest';
import { freePort, killStartedChildren } from '../../support/processes.ts';
import { is2xx, type Ledger } from './load.ts';
import { type PrivatePostgres, startPrivatePostgres } from './postgres.ts';
import { type PrivateRedis, startPrivateRedis } from './redis.ts';
import { createService, type Entry, type Service } from './service.ts';
import { deadLetters, installsInPostgres, readStored, waitDrained } from './stored.ts';
import { report, type Summary, summarize, type Window } from './verdict.ts';

/** CI=true gives short runs (the whole suite in a few minutes); otherwise about a minute of load per test. */
export const SHORT = process.env.CI === 'true' || process.env.CI === '1';
export const DURATION = {
  /** Load before the fault. */
  warmupMs: SHORT ? 4_000 : 20_000,
  /** How long the fault lasts. */
  faultMs: SHORT ? 6_000 : 30_000,
  /** Load after recovery. */
  afterMs: SHORT ? 8_000 : 30_000,
};
export const WORKERS = 6;
/** After a fault, failures are still expected this long (reconnects, pools re-opening). */
export const GRACE_MS = 5_000;
/** A test's own time limit: boots, load, drain (the reconciler runs once a minute) and counting. */
export const TEST_MS = SHORT ? 420_000 : 900_000;
const DRAIN_MS = 240_000;

export type Fixture = {
  pg: PrivatePostgres;
  redis: PrivateRedis | undefined;
  svc: Service;
  sql: Sql;
  projectId: () => string;
  token: () => string;
  close: () => Promise<void>;
};

export async function setupFixture(opts: { redis: boolean; entry: Entry }): Promise<Fixture> {
  const cleanups: (() => Promise<unknown>)[] = [];
  const close = async () => {
    for (const c of cleanups.reverse()) {
      await c().catch((err) => process.stderr.write(`cleanup: ${String(err)}\n`));
    }
  };
  try {
    const pg = await startPrivatePostgres();
    cleanups.push(() => pg.close());
    const redis = opts.redis ? await startPrivateRedis() : undefined;
    if (redis) {
      cleanups.push(() => redis.close());
    }
    const databaseUrl = await pg.createDatabase('attribution_faults');
    const sql = postgres(databaseUrl, { max: 2, onnotice: () => {}, connect_timeout: 3 });
    cleanups.push(() => sql.end({ timeout: 2 }));
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'attribution-faults-data-'));
    await chmod(dataDir, 0o755);
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const port = await freePort();
    const svc = createService({
      dataDir,
      port,
      logFile: path.join(os.tmpdir(), `attribution-faults-service-${Date.now()}-${port}.log`),
      env: { DATABASE_URL: databaseUrl, ...(redis ? { REDIS_URL: redis.url } : {}) },
    });
    // Runs first at close: every child this test file started (the service, count children).
    cleanups.push(() => killStartedChildren());
    await svc.start(opts.entry);
    return {
      pg,
      redis,
      svc,
      sql,
      projectId: () => svc.creds().projectId,
      token: () => svc.creds().token,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

export const ackedInstalls = (ledger: Ledger) =>
  ledger.recs.filter((r) => r.kind === 'init' && is2xx(r)).map((r) => r.key);

/** Drains, stops the service (SIGTERM), counts what ClickHouse holds, prints the JSON line and judges it. */
export async function finish(
  fx: Fixture,
  ledger: Ledger,
  opts: { test: string; windows: Window[]; healedMs: number; extra?: Record<string, unknown> },
): Promise<Summary> {
  const drainS = await waitDrained(fx.sql, fx.projectId(), ackedInstalls(ledger), DRAIN_MS, () =>
    fx.svc.unexpectedExits.length > 0 ? `the service exited: ${JSON.stringify(fx.svc.unexpectedExits)}` : undefined,
  );
  const dlq = await deadLetters(fx.sql, fx.projectId());
  const failedInits = ledger.recs.filter((r) => r.kind === 'init' && !is2xx(r)).map((r) => r.key);
  const ghostInstalls = await installsInPostgres(fx.sql, fx.projectId(), failedInits);
  const { exit } = await fx.svc.stop();
  const stored = await readStored(fx.svc.chPath, fx.projectId());
  const s = summarize({
    test: opts.test,
    ledger,
    stored,
    dlq,
    restarts: fx.svc.restarts(),
    windows: opts.windows,
    healedMs: opts.healedMs,
    ghostInstalls,
    extra: {
      drain_s: Math.round(drainS * 10) / 10,
      ...opts.extra,
      service_log: fx.svc.logFile,
      postgres_log: fx.pg.logFile,
    },
  });
  // Registered in the test that judges: its outcome (including assertions after finish) decides.
  onTestFinished(async ({ task }) => {
    if (task.result?.state === 'pass' && process.env.FAULTS_KEEP_LOGS !== '1') {
      await rm(fx.svc.logFile, { force: true });
      await rm(fx.pg.logFile, { force: true });
    }
  });
  try {
    report(s, fx.svc.unexpectedExits);
  } catch (err) {
    (err as Error).message += `\nservice log: ${fx.svc.logFile}\npostgres log: ${fx.pg.logFile}`;
    throw err;
  }
  if (exit.code !== 0) {
    throw new Error(
      `the service did not stop cleanly: ${JSON.stringify(exit)}\n${fx.svc.child().stderr().slice(-3000)}\nservice log: ${fx.svc.logFile}`,
    );
  }
  return s;
}
