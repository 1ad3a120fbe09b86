// Child processes for end-to-end tests: the service and the package bin, run as a user would
// (`node --import tsx src/main.ts`), with output captured. Every child is tracked so a test file
// can kill whatever is still running in afterAll, even when a test failed half-way.
import { type ChildProcess, type StdioOptions, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ROOT } from '../../src/lib/paths.ts';

export type Exit = { code: number | null; signal: NodeJS.Signals | null };

export type Child = {
  proc: ChildProcess;
  /** Leads its own process group (started detached). */
  group: boolean;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the child's exit, whenever it comes. */
  exited: Promise<Exit>;
  /** Resolves when stdout contains text; rejects if the child exits first or the time runs out. */
  waitFor: (text: string, timeoutMs: number) => Promise<void>;
  /** Resolves with the exit, or rejects when the child is still running after timeoutMs. */
  waitExit: (timeoutMs: number) => Promise<Exit>;
};

const started = new Set<Child>();

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

/** The environment a user's shell would give: PATH and HOME only, plus what the test sets. */
export function cleanEnv(extra: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...extra };
}

function timeout<T>(ms: number, what: () => string): Promise<T> {
  return new Promise((_, reject) => {
    setTimeout(() => reject(new Error(what())), ms).unref();
  });
}

/**
 * Starts `node <args>` in the repository root. `detached` puts the child in its own process group,
 * so a test can signal the group the way a terminal's Ctrl-C does, and cleanup reaches grandchildren
 * (the embedded Postgres) too.
 */
/**
 * Starts `node args…`. `ipc`: the child gets a Node IPC channel (proc.send) and no stdin: the
 * embedded ClickHouse engine reads the process's stdin as data for an INSERT when a line is waiting
 * there, so a control line sent on stdin could be eaten by an insert (and fail it).
 */
export function startNode(
  args: string[],
  env: Record<string, string>,
  opts: { detached?: boolean; ipc?: boolean } = {},
): Child {
  const stdio: StdioOptions = opts.ipc ? ['ignore', 'pipe', 'pipe', 'ipc'] : 'pipe';
  const proc = spawn(process.execPath, args, { cwd: ROOT, env, detached: opts.detached ?? false, stdio });
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  proc.stdout?.on('data', (c: Buffer) => {
    out += c.toString('utf8');
    for (const l of listeners) {
      l();
    }
  });
  proc.stderr?.on('data', (c: Buffer) => {
    err += c.toString('utf8');
  });
  const exited = new Promise<Exit>((resolve) => {
    proc.on('exit', (code, signal) => resolve({ code, signal }));
  });
  const describe = () => `\n--- stdout ---\n${out.slice(-4000)}\n--- stderr ---\n${err.slice(-4000)}`;
  const child: Child = {
    proc,
    group: opts.detached ?? false,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor: (text, ms) => {
      const seen = new Promise<void>((resolve) => {
        const check = () => {
          if (out.includes(text)) {
            listeners.delete(check);
            resolve();
          }
        };
        listeners.add(check);
        check();
      });
      const early = exited.then((e) => {
        throw new Error(`process exited (${e.code ?? e.signal}) before printing '${text}'${describe()}`);
      });
      return Promise.race([seen, early, timeout<void>(ms, () => `no '${text}' after ${ms} ms${describe()}`)]);
    },
    waitExit: (ms) => Promise.race([exited, timeout<Exit>(ms, () => `still running after ${ms} ms${describe()}`)]),
  };
  started.add(child);
  void exited.then(() => started.delete(child));
  return child;
}

/** Kills every child this process started that is still running (its whole group, when detached). */
export async function killStartedChildren(): Promise<void> {
  const waits: Promise<unknown>[] = [];
  for (const c of started) {
    const pid = c.proc.pid;
    if (pid === undefined || c.proc.exitCode !== null || c.proc.signalCode !== null) {
      continue;
    }
    try {
      process.kill(c.group ? -pid : pid, 'SIGKILL');
    } catch {
      // already gone
    }
    waits.push(c.waitExit(10_000).catch(() => {}));
  }
  await Promise.all(waits);
}

/** The pid of the postmaster running on dataDir/postgres, if any. */
export function postmasterPid(dataDir: string): number | undefined {
  const file = path.join(dataDir, 'postgres', 'postmaster.pid');
  if (!existsSync(file)) {
    return undefined;
  }
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** A running process's process group (/proc/<pid>/stat: the field after its state and parent). */
export function processGroup(pid: number): number {
  const afterName = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').at(-1) ?? '';
  return Number(afterName.split(' ')[2]);
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
