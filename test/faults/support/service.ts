// The service under test as a child process, started the way a user starts it (`node --import tsx
// src/main.ts`) or through the fault entry (fault-service.ts), on fixed ports across restarts so
// the load keeps aiming at the same address. Every exit the test did not ask for is recorded: a
// fault test fails on an unexpected process exit. Each start's stdout and stderr are appended to
// logFile, which outlives the test, so a failure can be traced to the error behind it.
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { type Child, cleanEnv, type Exit, startNode } from '../../support/processes.ts';
import { waitUntil } from './wait.ts';

export type Entry = 'main' | 'fault';
const ENTRY: Record<Entry, string[]> = {
  main: ['--import', 'tsx', 'src/main.ts'],
  fault: ['--import', 'tsx', 'test/faults/support/fault-service.ts'],
};
const BOOT_MS = 180_000;

export type Credentials = { projectId: string; token: string; serverKey: string };

export type Service = {
  baseUrl: string;
  chPath: string;
  /** Every start's stdout and stderr, kept after the test. */
  logFile: string;
  creds: () => Credentials;
  child: () => Child;
  start: (entry: Entry) => Promise<void>;
  /** SIGTERM; resolves with the exit and the seconds it took. */
  stop: (timeoutMs?: number) => Promise<{ exit: Exit; seconds: number }>;
  /** SIGKILL to the process group. */
  kill: () => Promise<void>;
  send: (line: string) => void;
  restarts: () => number;
  unexpectedExits: Exit[];
};

function parseBanner(stdout: string): Credentials | undefined {
  const projectId = /project id:\s+(\S+)/.exec(stdout)?.[1];
  const token = /project token:\s+(pt_\S+)/.exec(stdout)?.[1];
  const serverKey = /server key:\s+(sk_\S+)/.exec(stdout)?.[1];
  return projectId && token && serverKey ? { projectId, token, serverKey } : undefined;
}

async function healthy(baseUrl: string): Promise<boolean> {
  try {
    const res = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(2000) });
    return res.status === 200;
  } catch {
    return false;
  }
}

/** Appends the child's output to file, after a line saying which start it is. */
function keepOutput(child: Child, file: string, header: string): void {
  const log = createWriteStream(file, { flags: 'a' });
  log.on('error', (err) => process.stderr.write(`service log ${file}: ${String(err)}\n`));
  log.write(`--- ${header} at ${new Date().toISOString()} ---\n`);
  child.proc.stdout?.pipe(log, { end: false });
  child.proc.stderr?.pipe(log, { end: false });
  // 'close' comes after the child's output has been read to its end ('exit' may come before).
  child.proc.once('close', (code, signal) => log.end(`--- exited ${JSON.stringify({ code, signal })} ---\n`));
}

export function createService(opts: {
  dataDir: string;
  port: number;
  env: Record<string, string>;
  logFile: string;
}): Service {
  const baseUrl = `http://127.0.0.1:${opts.port}`;
  const env = cleanEnv({
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: String(opts.port),
    DATA_DIR: opts.dataDir,
    RATE_LIMITS_ENABLED: 'false',
    SECRETS_KEY: 'ab'.repeat(32),
    ...opts.env,
  });
  let current: Child | undefined;
  let creds: Credentials | undefined;
  let starts = 0;
  let expected = false;
  const unexpectedExits: Exit[] = [];
  const live = (): Child => {
    if (!current) {
      throw new Error('service not started');
    }
    return current;
  };
  return {
    baseUrl,
    chPath: path.join(opts.dataDir, 'clickhouse'),
    logFile: opts.logFile,
    creds: () => {
      if (!creds) {
        throw new Error('no credentials: the first start printed no banner');
      }
      return creds;
    },
    child: live,
    async start(entry) {
      expected = false;
      const child = startNode(ENTRY[entry], env, { detached: true, ipc: entry === 'fault' });
      current = child;
      starts += 1;
      keepOutput(child, opts.logFile, `start ${starts} (${entry}), pid ${child.proc.pid}`);
      void child.exited.then((exit) => {
        if (!expected && current === child) {
          unexpectedExits.push(exit);
          process.stderr.write(
            `service exited unexpectedly: ${JSON.stringify(exit)}\n${child.stderr().slice(-3000)}\n`,
          );
        }
      });
      const early = child.exited.then((e) => {
        throw new Error(`service exited during start (${e.code ?? e.signal}):\n${child.stderr().slice(-3000)}`);
      });
      await Promise.race([waitUntil('the service answers /healthz', () => healthy(baseUrl), BOOT_MS, 500), early]);
      creds ??= parseBanner(child.stdout());
    },
    async stop(timeoutMs = 30_000) {
      const child = live();
      expected = true;
      const t0 = performance.now();
      child.proc.kill('SIGTERM');
      const exit = await child.waitExit(timeoutMs);
      return { exit, seconds: (performance.now() - t0) / 1000 };
    },
    async kill() {
      const child = live();
      expected = true;
      const pid = child.proc.pid;
      if (pid !== undefined && child.proc.exitCode === null && child.proc.signalCode === null) {
        process.kill(-pid, 'SIGKILL');
      }
      await child.waitExit(10_000);
    },
    send(line) {
      live().proc.send(line);
    },
    restarts: () => Math.max(0, starts - 1),
    unexpectedExits,
  };
}
