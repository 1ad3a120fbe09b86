// The CLI's stdout piped into a reader that stops early (`npm run cli -- projects list | head -1`,
// `... | jq 'first'`, a closed pager), run as a process. README "CLI": every command prints its
// result on stdout so it can be piped; "Ctrl-C on a command closes its connections and stops a
// Postgres it started". A closed reader is not a failure of the command: it stops writing, closes
// its stores (stopping an embedded Postgres it started) and exits with its own code, quietly.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freshDataDir, removeDataDirs, waitUntil } from '../support/embedded-service.ts';
import { processDatabaseUrl } from '../support/harness.ts';
import {
  type Child,
  cleanEnv,
  freePort,
  isAlive,
  killStartedChildren,
  postmasterPid,
  startNode,
} from '../support/processes.ts';

const CLI = ['--import', 'tsx', 'src/cli/main.ts'];
const dirs: string[] = [];

afterAll(async () => {
  await killStartedChildren();
  await removeDataDirs();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

/** Starts the CLI and closes our end of its stdout at once, as `| head -c0` would. */
function cliWithClosedStdout(args: string[], env: Record<string, string>): Child {
  const child = startNode([...CLI, ...args], env);
  child.proc.stdout?.destroy();
  return child;
}

async function serviceEnv(): Promise<Record<string, string>> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'cli-pipe-'));
  dirs.push(dataDir);
  return cleanEnv({ DATABASE_URL: await processDatabaseUrl(), DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
}

describe('stdout closed by the reader (service mode)', () => {
  // Node ignores SIGPIPE: the first write raised EPIPE as an unhandled 'error' event, a stack trace
  // and exit 1 ("any other failure").
  it('when stdout is a closed pipe, then `projects list --json` exits 0 with nothing on stderr', async () => {
    const child = cliWithClosedStdout(['projects', 'list', '--json'], await serviceEnv());

    const exit = await child.waitExit(60_000);

    expect(child.stderr()).toBe('');
    expect(exit).toEqual({ code: 0, signal: null });
  }, 90_000);

  it('when stdout is a closed pipe and the command fails, then its own exit code (2) and message stand', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    const child = cliWithClosedStdout(['projects', 'rotate-key', '--project', missing], await serviceEnv());

    const exit = await child.waitExit(60_000);

    expect(exit.code).toBe(2);
    expect(child.stderr()).toMatch(/^error: .*not found/);
    expect(child.stderr()).not.toMatch(/^\s+at /m);
  }, 90_000);
});

describe('stdout closed by the reader (embedded mode)', () => {
  it('when stdout is a closed pipe, then the embedded Postgres the command started is stopped when it ends', async () => {
    const dataDir = await freshDataDir();
    const env = cleanEnv({
      DATA_DIR: dataDir,
      EMBEDDED_PG_PORT: String(await freePort()),
      PORT: String(await freePort()),
      LOG_LEVEL: 'silent',
    });

    const child = cliWithClosedStdout(['projects', 'list', '--json'], env);
    const exit = await child.waitExit(90_000);
    const pg = postmasterPid(dataDir);
    if (pg !== undefined) {
      await waitUntil(() => !isAlive(pg), 10_000, 'the postmaster stopped').catch(() => {});
    }

    expect(child.stderr()).not.toContain("Unhandled 'error' event");
    expect(exit.code, child.stderr()).toBe(0);
    expect(
      pg !== undefined && isAlive(pg),
      `embedded Postgres (pid ${pg}) left running after the CLI ended (exit ${exit.code})`,
    ).toBe(false);
  }, 120_000);
});
