// Shared by the end-to-end tests of embedded mode's lifecycle (test/e2e/embedded-*.test.ts): the
// first-start banner, the CLI beside a server, the postmasters and initdb processes running on a
// DATA_DIR (read from /proc), initdb's own directories in it, and what a stopped service stored in
// its embedded ClickHouse (the fault suite's count-child.ts).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { readStored as readStoredAt, type Stored } from '../faults/support/stored.ts';
import { type Child, startNode } from './processes.ts';

export const BIN = ['bin/attribution.mjs'];
export const BOOT_MS = 60_000;
export const STOP_MS = 25_000; // main.ts forces exit(1) after 20 s

export type Banner = { projectId: string; token: string; serverKey: string };

export function parseBanner(stdout: string): Banner {
  const projectId = /project id:\s+(\S+)/.exec(stdout)?.[1];
  const token = /project token:\s+(pt_\S+)/.exec(stdout)?.[1];
  const serverKey = /server key:\s+(sk_\S+)/.exec(stdout)?.[1];
  if (!projectId || !token || !serverKey) {
    throw new Error(`no first-start banner in:\n${stdout.slice(-3000)}`);
  }
  return { projectId, token, serverKey };
}

/** Runs a CLI command to its end. */
export async function cli(env: Record<string, string>, args: string[]): Promise<Child> {
  const c = startNode([...BIN, ...args], env);
  await c.waitExit(90_000);
  return c;
}

/** Pids of the processes whose command line mentions `needle` (postmasters, initdb), from /proc. */
export function pidsMentioning(needle: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    try {
      const cmd = readFileSync(path.join('/proc', entry, 'cmdline'), 'utf8')
        .split('\0')
        .join(' ');
      const stat = readFileSync(path.join('/proc', entry, 'stat'), 'utf8');
      const state = stat.split(') ').at(-1)?.[0];
      if (cmd.includes(needle) && state !== 'Z' && Number(entry) !== process.pid) {
        out.push(Number(entry));
      }
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Postgres server processes (postmaster and backends) whose data directory is dataDir/postgres. */
export function postgresOn(dataDir: string): number[] {
  return pidsMentioning(`-D ${path.join(dataDir, 'postgres')}`);
}

/** The directories an initdb runs in (DATA_DIR/postgres.init-<pid>-<random>, renamed into place when done). */
export function initdbDirs(dataDir: string): string[] {
  if (!existsSync(dataDir)) {
    return [];
  }
  return readdirSync(dataDir)
    .filter((n) => n.startsWith('postgres.init-'))
    .map((n) => path.join(dataDir, n));
}

/** initdb processes writing into DATA_DIR (into a directory of its own, or DATA_DIR/postgres as they did). */
export function initdbsOn(dataDir: string): number[] {
  return pidsMentioning(`initdb --pgdata=${dataDir}${path.sep}`);
}

/** What the (stopped) service stored in DATA_DIR/clickhouse for the project, key → rows. */
export function readStored(dataDir: string, projectId: string): Promise<Stored> {
  return readStoredAt(path.join(dataDir, 'clickhouse'), projectId);
}
