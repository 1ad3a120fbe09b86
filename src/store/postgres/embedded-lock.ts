// DATA_DIR/postgres.lock: one process at a time decides about the embedded Postgres (initialise,
// start or adopt it, and whether to stop it). Without it two starts on an empty DATA_DIR both ran
// initdb into one directory, and a process deciding to stop Postgres could do so while another one
// was connecting to it. The file holds the pid of its holder; a holder that died (SIGKILL) leaves a
// stale file, which the next process takes over.
import { readFile, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export class EmbeddedLockTimeout extends Error {}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The holder's pid; undefined when the file is stale (holder gone) or already removed. */
async function liveHolder(file: string): Promise<number | undefined> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) {
    return undefined;
  }
  const pid = Number(text.trim());
  if (!Number.isInteger(pid) || pid <= 0) {
    // Created but not yet written (a moment), or garbage: stale once it is a few seconds old.
    const age = Date.now() - ((await stat(file).catch(() => undefined))?.mtimeMs ?? 0);
    return age < 5_000 ? -1 : undefined;
  }
  return pid !== process.pid && alive(pid) ? pid : undefined;
}

/**
 * Runs `fn` holding DATA_DIR/postgres.lock. Waits up to `waitMs` for a live holder; past that it
 * throws EmbeddedLockTimeout naming the holder and the file.
 */
export async function withEmbeddedLock<T>(dataDir: string, waitMs: number, fn: () => Promise<T>): Promise<T> {
  const file = path.join(dataDir, 'postgres.lock');
  const end = Date.now() + waitMs;
  for (;;) {
    try {
      await writeFile(file, `${process.pid}\n`, { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw err;
      }
    }
    const holder = await liveHolder(file);
    if (holder === undefined) {
      await unlink(file).catch(() => {});
      continue;
    }
    if (Date.now() > end) {
      throw new EmbeddedLockTimeout(
        `another process (pid ${holder}) is starting or stopping the embedded Postgres in ${dataDir} ` +
          `and has held ${file} for over ${Math.round(waitMs / 1000)} s. Start again once it is done; ` +
          `remove the file only if that process is not one of ours.`,
      );
    }
    await sleep(100);
  }
  try {
    return await fn();
  } finally {
    await unlink(file).catch(() => {});
  }
}
