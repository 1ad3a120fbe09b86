// DATA_DIR/postgres.lock (src/store/postgres/embedded-lock.ts) after its holder was SIGKILLed: the
// file names a pid that no longer runs, and the next process takes it over. README: the processes
// on a DATA_DIR "take turns through DATA_DIR/postgres.lock while they start or stop" the embedded
// Postgres. When several processes start at the same moment after such a kill (a server and a CLI
// command, two servers, a supervisor's restart beside a cron job), exactly one may hold it at a
// time. Each child (embedded-lock-child.ts) takes the lock in rounds that start at shared
// wall-clock moments, a stale file written before each round, and logs when it entered and left.
// Checking the file stale and deleting it were two steps: two or three processes held it at once
// in most rounds.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { withEmbeddedLock } from '../../src/store/postgres/embedded-lock.ts';
import { killStartedChildren, startNode } from '../support/processes.ts';

const dirs: string[] = [];
afterAll(async () => {
  await killStartedChildren();
  for (const d of dirs) {
    await rm(d, { recursive: true, force: true });
  }
});

/** A pid that runs no process now (the SIGKILLed holder). */
async function deadPid(): Promise<number> {
  const c = startNode(['-e', '0'], { PATH: process.env.PATH ?? '' });
  await c.waitExit(10_000);
  return c.proc.pid as number;
}

describe('the embedded lock after its holder was SIGKILLed', () => {
  it('when four processes take over the stale lock at the same moment, then only one holds it at a time', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'embedded-lock-takeover-'));
    dirs.push(dir);
    const log = path.join(dir, 'held.log');
    const rounds = 6;
    const roundMs = 2500; // a round is over (4 × holdMs, 100 ms polls) well before the next stale file is written
    const holdMs = 150;
    const first = Date.now() + 10_000; // every child has loaded by then
    const dead = await deadPid();
    const children = Array.from({ length: 4 }, (_, i) =>
      startNode(
        [
          '--import',
          'tsx',
          'test/support/embedded-lock-child.ts',
          dir,
          log,
          String(first),
          String(rounds),
          String(roundMs),
          String(holdMs),
          i === 0 ? '1' : '0',
          String(dead),
        ],
        { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
      ),
    );
    for (const c of children) {
      expect(await c.waitExit(60_000), c.stderr()).toEqual({ code: 0, signal: null });
    }

    const lines = (await readFile(log, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => l.split(' '));
    const mostHolders: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const events = lines
        .filter((l) => l[0] === String(r))
        .map((l) => ({ enter: l[1] === 'enter', t: Number(l[3]) }))
        .sort((a, b) => a.t - b.t);
      expect(events.length, `round ${r}: every child entered and left once`).toBe(8);
      let held = 0;
      let most = 0;
      for (const e of events) {
        held += e.enter ? 1 : -1;
        most = Math.max(most, held);
      }
      mostHolders.push(most);
    }
    expect(mostHolders, 'the most processes holding the lock at once, per round').toEqual(
      Array.from({ length: rounds }, () => 1),
    );
  }, 90_000);

  it('when a process died taking the stale lock over (its takeover file left too), then the next one takes the lock and leaves nothing behind', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'embedded-lock-takeover-'));
    dirs.push(dir);
    const dead = await deadPid();
    await writeFile(path.join(dir, 'postgres.lock'), `${dead}\n`);
    await writeFile(path.join(dir, 'postgres.lock.takeover'), `${dead}\n`);

    const held = await withEmbeddedLock(dir, 5_000, () => readFile(path.join(dir, 'postgres.lock'), 'utf8'));

    expect(held).toBe(`${process.pid}\n`);
    expect(await readdir(dir)).toEqual([]);
  });
});
