// One bench run's processes: the ceiling server and the service under test, each started on first
// use and kept until the end. finish() lets the fact writer drain, stops the service cleanly and
// opens what it stored; close() stops whatever is still running and removes the temp DATA_DIR,
// on success, on error and on Ctrl-C alike.
import fs from 'node:fs/promises';
import path from 'node:path';
import { stopCapiSink } from './capi-sink.ts';
import { type CeilingServer, startCeilingServer } from './ceiling-server.ts';
import { type DrainReport, type FactsReader, openFactsReader, waitForBacklog } from './facts.ts';
import type { Layout } from './layout.ts';
import { prepareProject } from './project.ts';
import { RESULTS_DIR } from './results.ts';
import { type RunningService, type ServiceMode, startBenchService } from './service.ts';
import { round } from './stats.ts';
import type { BenchTarget } from './workload.ts';

const FINAL_DRAIN_TIMEOUT_MS = 180_000;
/** The service's whole output, per run (runs may overlap) and copied to latest-service.log (git-ignored as *.log). */
const serviceLogOf = (runId: string) => path.join(RESULTS_DIR, `service-${runId}.log`);
const LATEST_SERVICE_LOG = path.join(RESULTS_DIR, 'latest-service.log');

/** pino JSON lines → count per message ('job failed': 120 says how often attribution retried). */
function countLogMessages(output: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) {
      continue;
    }
    try {
      const msg = String((JSON.parse(line) as { msg?: unknown }).msg ?? '');
      counts[msg] = (counts[msg] ?? 0) + 1;
    } catch {
      // a line cut by the output cap
    }
  }
  return counts;
}

export type ServiceReport = {
  start_s: number;
  /** Warnings and errors the service logged (LOG_LEVEL=warn), counted by message. */
  log_messages: Record<string, number>;
  log_file: string | undefined;
  final_drain: DrainReport | undefined;
  stop: { ms: number; killed: boolean; code: number | null } | undefined;
};

export class Session {
  private ceilingP: Promise<CeilingServer> | undefined;
  private serviceP: Promise<BenchTarget> | undefined;
  private svc: RunningService | undefined;
  private stopped = false;
  readonly report: ServiceReport = {
    start_s: Number.NaN,
    log_messages: {},
    log_file: undefined,
    final_drain: undefined,
    stop: undefined,
  };

  constructor(
    private readonly opts: {
      layout: Layout;
      mode: ServiceMode;
      runId: string;
      progress: (line: string) => void;
    },
  ) {}

  get layout(): Layout {
    return this.opts.layout;
  }

  /** The service's pid once it runs (the harness samples its memory). */
  get servicePid(): number | undefined {
    return this.svc?.pid;
  }

  ceilingServer(): Promise<CeilingServer> {
    this.ceilingP ??= startCeilingServer(this.opts.layout.serverCpu);
    return this.ceilingP;
  }

  service(): Promise<BenchTarget> {
    this.serviceP ??= this.startService();
    return this.serviceP;
  }

  private async startService(): Promise<BenchTarget> {
    const t0 = performance.now();
    this.opts.progress(`starting the service (${this.opts.mode} mode)`);
    await fs.mkdir(RESULTS_DIR, { recursive: true });
    this.report.log_file = serviceLogOf(this.opts.runId);
    this.svc = await startBenchService(this.opts.mode, this.opts.layout, this.report.log_file);
    const project = await prepareProject(this.svc, this.opts.runId);
    this.report.start_s = round((performance.now() - t0) / 1000, 1);
    this.opts.progress(`service ready at ${this.svc.url} in ${this.report.start_s} s (project ${project.projectId})`);
    return { svc: this.svc, project };
  }

  /** Drains the outbox, stops the service, and hands the stored facts to `read` (skipped if no service ran). */
  async finish(read: (facts: FactsReader) => Promise<void>): Promise<void> {
    if (!this.serviceP || !this.svc) {
      return;
    }
    const { svc, project } = await this.serviceP;
    this.report.final_drain = await waitForBacklog(svc.pgUrl, project.projectId, FINAL_DRAIN_TIMEOUT_MS);
    this.report.stop = await this.stopService();
    this.opts.progress(
      `service stopped in ${round(this.report.stop.ms / 1000, 1)} s (${this.report.stop.killed ? 'KILLED after timeout' : `exit code ${this.report.stop.code}`})`,
    );
    const facts = await openFactsReader(svc);
    try {
      await read(facts);
    } finally {
      await facts.close();
    }
  }

  private async stopService(): Promise<{ ms: number; killed: boolean; code: number | null }> {
    if (!this.svc || this.stopped) {
      return { ms: 0, killed: false, code: null };
    }
    this.stopped = true;
    return this.svc.stop();
  }

  async close(): Promise<void> {
    // Interrupted while the service starts: let the start finish (or fail), then stop it in order.
    await this.serviceP?.catch(() => {});
    await this.stopService().catch(() => {});
    if (this.svc) {
      const log = this.report.log_file ?? '';
      this.report.log_messages = countLogMessages(await fs.readFile(log, 'utf8').catch(() => ''));
      await fs.copyFile(log, LATEST_SERVICE_LOG).catch(() => {});
      // chdb (closed just before) may still be finishing files in the directory: retry on ENOTEMPTY.
      await fs
        .rm(this.svc.dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 })
        .catch((err: unknown) => this.opts.progress(`could not remove ${this.svc?.dataDir}: ${String(err)}`));
    }
    if (this.ceilingP) {
      await (await this.ceilingP.catch(() => undefined))?.stop();
    }
    await stopCapiSink();
  }
}
