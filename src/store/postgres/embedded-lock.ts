// DATA_DIR/postgres.lock: one process at a time decides about the embedded Postgres (initialise,
// start or adopt it, and whether to stop it). Without it two starts on an empty DATA_DIR both ran
// initdb into one directory, and a process deciding to stop Postgres could do so while another one
// was connecting to it. The file holds the pid of its holder; a holder that died (SIGKILL) leaves a
// stale file, which the next process takes over.
//
// Taking over is itself serialised, by DATA_DIR/postgres.lock.takeover (held for a moment only):
// checking that the file is stale and deleting it were two steps, and several processes starting
// at once after a kill each deleted it, some the file another one had just made, so two or three
// held the lock at once. Under the takeover file the lock file can change only by its holder
// deleting it, and a stale one has no living holder.
import { readFile, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export class EmbeddedLockTimeout extends Error {}

const POLL_MS = 100;
/** A file created but not yet written holds no pid for a moment: stale once it is this old. */
const UNWRITTEN_STALE_MS = 5_000;

/** Whether a process with this pid exists (EPERM: it does, owned by another user). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The holder's pid; undefined when the file is stale (holder gone) or already removed. Our own
 * pid counts as stale: a container runs the service under the same pid at every start.
 */
async function liveHolder(file: string): Promise<number | undefined> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) {
    return undefined;
  }
  const pid = Number(text.trim());
  if (!Number.isInteger(pid) || pid <= 0) {
    const age = Date.now() - ((await stat(file).catch(() => undefined))?.mtimeMs ?? 0);
    return age < UNWRITTEN_STALE_MS ? -1 : undefined;
  }
  return pid !== process.pid && alive(pid) ? pid : undefined;
}

/** Creates `file` holding our pid; false when it exists. */
async function create(file: string): Promise<boolean> {
  try {
    await writeFile(file, `${process.pid}\n`, { flag: 'wx' });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      return false;
    }
    throw err;
  }
}

/**
 * Deletes the stale lock file, under the takeover file; false when another process is taking it
 * over now. A takeover file whose holder died (killed in that moment) is deleted as it is.
 */
async function takeOver(file: string): Promise<boolean> {
  const takeover = `${file}.takeover`;
  if (!(await create(takeover))) {
    if ((await liveHolder(takeover)) === undefined) {
      await unlink(takeover).catch(() => {});
    }
    return false;
  }
  try {
    if ((await liveHolder(file)) === undefined) {
      await unlink(file).catch(() => {});
    }
    return true;
  } finally {
    await unlink(takeover).catch(() => {});
  }
}

/**
 * Runs `fn` holding DATA_DIR/postgres.lock. Waits up to `waitMs` for a live holder; past that it
 * throws EmbeddedLockTimeout naming the holder and the file.
 */
export async function withEmbeddedLock<T>(dataDir: string, waitMs: number, fn: () => Promise<T>): Promise<T> {
  const file = path.join(dataDir, 'postgres.lock');
  const end = Date.now() + waitMs;
  while (!(await create(file))) {
    const holder = await liveHolder(file);
    if (holder === undefined && (await takeOver(file))) {
      continue;
    }
    if (Date.now() > end) {
      throw new EmbeddedLockTimeout(
        `another process (pid ${holder !== undefined && holder > 0 ? holder : 'unknown'}) is starting or stopping the embedded Postgres in ${dataDir} ` +
          `and has held ${file} for over ${Math.round(waitMs / 1000)} s. Start again once it is done; ` +
          `remove the file only if that process is not one of ours.`,
      );
    }
    await sleep(holder === undefined ? 10 : POLL_MS);
  }
  try {
    return await fn();
  } finally {
    await unlink(file).catch(() => {});
  }
}
