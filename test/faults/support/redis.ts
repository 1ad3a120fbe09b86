// A private redis-server for the fault suite, on a free port with its data in a temp dir and the
// durability production uses (appendonly yes, appendfsync everysec), so a test can SIGKILL it and
// start it again on the same data. Without a redis-server binary the tests that need it skip.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../../support/processes.ts';
import { waitUntil } from './wait.ts';

export type PrivateRedis = {
  url: string;
  kill: () => Promise<void>;
  start: () => Promise<void>;
  /** SIGSTOP: a hung Redis (the connections stay open, nothing answers); resume() is SIGCONT. */
  pause: () => void;
  resume: () => void;
  close: () => Promise<void>;
};

/** Why a private Redis cannot run here, or undefined when it can. */
export function redisUnavailable(): string | undefined {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return 'no redis-server binary on PATH';
  }
}

async function pong(url: string): Promise<boolean> {
  const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  r.on('error', () => {});
  try {
    await r.connect();
    return (await r.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'attribution-faults-redis-'));
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--appendonly',
    'yes',
    '--appendfsync',
    'everysec',
    '--save',
    '',
    '--maxmemory-policy',
    'noeviction',
  ];
  let proc: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  const start = async () => {
    proc = spawn('redis-server', args, { stdio: 'ignore' });
    const p = proc;
    exited = new Promise((resolve) => p.once('exit', () => resolve()));
    await waitUntil('Redis answers PING', () => pong(url), 20_000);
  };
  const kill = async () => {
    const p = proc;
    if (p && p.exitCode === null && p.signalCode === null) {
      p.kill('SIGCONT');
      p.kill('SIGKILL');
      await exited;
    }
  };
  await start();
  return {
    url,
    kill,
    start,
    pause: () => proc?.kill('SIGSTOP'),
    resume: () => proc?.kill('SIGCONT'),
    async close() {
      await kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
