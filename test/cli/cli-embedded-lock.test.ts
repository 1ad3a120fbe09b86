// Commands that open the embedded ClickHouse (`migrate`, `users delete`) beside a
// running embedded-mode server. README "Embedded mode": "Only one process can open
// DATA_DIR/clickhouse at a time, and a second one fails with `Cannot lock file
// .../clickhouse/status. Another server instance in same directory is already running`"; README
// "CLI": they need the server stopped, every other command runs beside it. The refused command must
// leave the server (and the embedded Postgres it shares) serving.
import { afterAll, describe, expect, it } from 'vitest';
import { bootService, freshDataDir, readyz, removeDataDirs, serviceEnv } from '../support/embedded-service.ts';
import { killStartedChildren, startNode } from '../support/processes.ts';

afterAll(async () => {
  await killStartedChildren();
  await removeDataDirs();
});

const CLI = ['--import', 'tsx', 'src/cli/main.ts'];

describe('ClickHouse commands beside a running embedded server', () => {
  it('when migrate and users delete run beside the server, then each exits 1 saying another instance holds ClickHouse, and the server keeps serving; Postgres-only commands work', async () => {
    const dataDir = await freshDataDir();
    const env = await serviceEnv(dataDir, { LOG_LEVEL: 'silent' });
    const svc = await bootService({ ...env, LOG_LEVEL: 'info' }, 60_000);

    const list = startNode([...CLI, 'projects', 'list', '--json'], env);
    expect((await list.waitExit(60_000)).code, list.stderr()).toBe(0);
    const [project] = JSON.parse(list.stdout()) as { id: string }[];
    const migrate = startNode([...CLI, 'migrate'], env);
    const migrateExit = await migrate.waitExit(60_000);
    const del = startNode([...CLI, 'users', 'delete', '--project', String(project?.id), '--user-id', 'u1'], env);
    const delExit = await del.waitExit(60_000);

    for (const [run, exit] of [
      [migrate, migrateExit],
      [del, delExit],
    ] as const) {
      expect(exit.code).toBe(1);
      expect(run.stdout()).toBe('');
      expect(run.stderr()).toContain('Another server instance in same directory is already running');
      expect(run.stderr()).not.toMatch(/^\s+at /m);
    }
    expect(await readyz(Number(env.PORT))).toBe(200);
    svc.proc.kill('SIGTERM');
    expect((await svc.waitExit(25_000)).code).toBe(0);
  }, 150_000);
});
