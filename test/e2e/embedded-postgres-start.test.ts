// End to end: `npm start` in embedded mode when its Postgres cannot simply start. Issue: a Postgres
// that exits before it is ready (EMBEDDED_PG_PORT taken) failed with "TypeError: Cannot read
// properties of undefined" and no reason; a first start SIGKILLed during initdb left a DATA_DIR that
// never started again (initdb writes PG_VERSION early); two starts at once on an empty DATA_DIR both
// failed. DATA_DIR/postgres.lock serialises them, and initdb runs beside DATA_DIR/postgres, which it
// becomes (with a marker saying initdb finished) once done.
import { existsSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { INITIALISED_MARKER } from '../../src/store/postgres/embedded-initdb.ts';
import { initdbDirs } from '../support/embedded-kit.ts';
import {
  bootService,
  freshDataDir,
  readyz,
  removeDataDirs,
  serviceEnv,
  startOutcome,
  startService,
  waitUntil,
} from '../support/embedded-service.ts';
import { isAlive, killStartedChildren, postmasterPid } from '../support/processes.ts';

const BOOT_MS = 45_000;
const STOP_MS = 25_000; // main.ts forces exit(1) after 20 s
const TEST_MS = 60_000;

afterAll(async () => {
  await killStartedChildren();
  await removeDataDirs();
});

describe('npm start when the embedded Postgres cannot start', () => {
  it(
    'when EMBEDDED_PG_PORT is taken by another program, then it exits 1 naming the setting, the port and Postgres own log lines',
    async () => {
      const env = await serviceEnv(await freshDataDir());
      const pgPort = Number(env.EMBEDDED_PG_PORT);
      const blocker = net.createServer();
      await new Promise<void>((resolve) => blocker.listen(pgPort, '127.0.0.1', resolve));
      try {
        const svc = startService(env);
        const exit = await svc.waitExit(BOOT_MS);

        expect(exit.code, svc.stderr()).toBe(1);
        expect(svc.stderr()).not.toContain('TypeError');
        expect(svc.stderr()).toContain(
          `Port ${pgPort} on 127.0.0.1 is taken by another program: set EMBEDDED_PG_PORT to a free port.`,
        );
        expect(svc.stderr()).toContain('Its last log lines:');
        expect(svc.stderr()).toMatch(/could not bind|Address already in use/);
      } finally {
        await new Promise((resolve) => blocker.close(resolve));
      }
    },
    TEST_MS,
  );
});

describe('npm start on a DATA_DIR whose initialisation did not finish', () => {
  it(
    'when the first start was SIGKILLed during initdb, then the next start initialises it again and serves',
    async () => {
      const dataDir = await freshDataDir();
      const env = await serviceEnv(dataDir);
      const first = startService(env);
      await waitUntil(
        () => initdbDirs(dataDir).some((d) => existsSync(path.join(d, 'cluster', 'PG_VERSION'))),
        30_000,
        'initdb wrote PG_VERSION',
      );
      process.kill(-(first.proc.pid as number), 'SIGKILL'); // the group: node and its initdb
      await first.waitExit(10_000);
      expect(existsSync(path.join(dataDir, 'postgres')), 'initdb runs beside it').toBe(false);

      const second = startService(env);
      const outcome = await startOutcome(second, BOOT_MS);

      expect(outcome, second.stderr()).toBe('listening');
      expect(second.stdout()).toContain('its initialisation was interrupted');
      await waitUntil(async () => (await readyz(Number(env.PORT))) === 200, 10_000, '/readyz answered 200');
      expect(existsSync(path.join(dataDir, 'postgres', INITIALISED_MARKER))).toBe(true);
      expect(initdbDirs(dataDir)).toEqual([]);
      second.proc.kill('SIGTERM');
      expect(await second.waitExit(STOP_MS)).toEqual({ code: 0, signal: null });
    },
    TEST_MS,
  );

  it(
    'when an earlier version left its initdb unfinished in DATA_DIR/postgres (its "initdb began" marker beside it), then the start initialises it again and serves',
    async () => {
      const dataDir = await freshDataDir();
      const env = await serviceEnv(dataDir);
      await mkdir(path.join(dataDir, 'postgres', 'base'), { recursive: true });
      await writeFile(path.join(dataDir, 'postgres', 'PG_VERSION'), '18\n');
      await writeFile(path.join(dataDir, 'postgres.initdb-started'), 'initdb began\n');

      const svc = startService(env);
      const outcome = await startOutcome(svc, BOOT_MS);

      expect(outcome, svc.stderr()).toBe('listening');
      expect(svc.stdout()).toContain('its initialisation was interrupted');
      expect(existsSync(path.join(dataDir, 'postgres', INITIALISED_MARKER))).toBe(true);
      expect(existsSync(path.join(dataDir, 'postgres.initdb-started'))).toBe(false);
      svc.proc.kill('SIGTERM');
      expect(await svc.waitExit(STOP_MS)).toEqual({ code: 0, signal: null });
    },
    TEST_MS,
  );

  it(
    'when two starts race on an empty DATA_DIR, then one serves, the other refuses with a reason, and the one left keeps its Postgres',
    async () => {
      const dataDir = await freshDataDir();
      const env = await serviceEnv(dataDir);
      const a = startService(env);
      const b = startService({ ...env, PORT: String(Number(env.PORT) + 1) });

      const outcomes = await Promise.all([startOutcome(a, BOOT_MS), startOutcome(b, BOOT_MS)]);

      expect([...outcomes].sort(), `${a.stderr()}\n${b.stderr()}`).toEqual(['exited 1', 'listening']);
      const [winner, loser] = outcomes[0] === 'listening' ? [a, b] : [b, a];
      const winnerPort = winner === a ? Number(env.PORT) : Number(env.PORT) + 1;
      // The engine refuses a second process on DATA_DIR/clickhouse (README, Embedded mode).
      expect(loser.stderr(), `${loser.stdout()}\n${loser.stderr()}`).toContain(
        'Another server instance in same directory is already running',
      );
      await new Promise((r) => setTimeout(r, 1000));
      expect(await readyz(winnerPort)).toBe(200);
      const pgPid = postmasterPid(dataDir) as number;
      winner.proc.kill('SIGTERM');
      expect(await winner.waitExit(STOP_MS)).toEqual({ code: 0, signal: null });
      expect(isAlive(pgPid)).toBe(false);
    },
    TEST_MS,
  );

  it(
    'when a DATA_DIR from before the marker existed starts, then it serves and gets the marker',
    async () => {
      const dataDir = await freshDataDir();
      const env = await serviceEnv(dataDir);
      const first = await bootService(env, BOOT_MS);
      first.proc.kill('SIGTERM');
      expect(await first.waitExit(STOP_MS)).toEqual({ code: 0, signal: null });
      const marker = path.join(dataDir, 'postgres', INITIALISED_MARKER);
      rmSync(marker);

      const second = startService(env);
      const outcome = await startOutcome(second, BOOT_MS);

      expect(outcome, second.stderr()).toBe('listening');
      expect(second.stdout()).not.toContain('initialising embedded postgres');
      expect(existsSync(marker)).toBe(true);
      await waitUntil(async () => (await readyz(Number(env.PORT))) === 200, 10_000, '/readyz answered 200');
      second.proc.kill('SIGTERM');
      expect(await second.waitExit(STOP_MS)).toEqual({ code: 0, signal: null });
    },
    TEST_MS,
  );
});

describe('npm start: its first moments', () => {
  it(
    'when SIGTERM comes while the service is starting, then it finishes starting, stops cleanly and leaves no Postgres',
    async () => {
      // The handlers came after the start: the signal killed the process and left its Postgres.
      const dataDir = await freshDataDir();
      const svc = startService(await serviceEnv(dataDir));
      await svc.waitFor('"msg":"starting"', BOOT_MS);
      svc.proc.kill('SIGTERM');

      expect(await svc.waitExit(BOOT_MS + STOP_MS), svc.stderr()).toEqual({ code: 0, signal: null });
      expect(svc.stderr()).toContain('SIGTERM while starting: stopping once started');
      const pid = postmasterPid(dataDir);
      expect(pid === undefined || !isAlive(pid)).toBe(true);
    },
    TEST_MS + STOP_MS,
  );

  it(
    'when DATABASE_POOL_SIZE=1, then the first start serves and prints the first-start banner',
    async () => {
      // The first-run lock was held on a reserved connection while the count waited for the pool's only one.
      const env = await serviceEnv(await freshDataDir(), { DATABASE_POOL_SIZE: '1' });
      const svc = await bootService(env, BOOT_MS);

      expect(svc.stdout()).toContain('First start: created the project "Default project".');
      svc.proc.kill('SIGTERM');
      expect(await svc.waitExit(STOP_MS)).toEqual({ code: 0, signal: null });
    },
    TEST_MS,
  );
});
