// README: "Every process (API, worker or CLI) applies pending Postgres and ClickHouse migrations when
// it starts. Postgres advisory locks serialise migrations, so several processes can start at once."
// and "The first process that serves HTTP (`all` or `api`) creates the default project."
// Two api processes and two workers started at the same moment on an empty database and an empty
// ClickHouse: all four start, each migration is applied once, one default project is created and
// its banner is printed by exactly one api process; a worker never creates it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Front, startClickHouseFront } from '../support/ch-front.ts';
import {
  banner,
  CH_PASSWORD,
  CH_USER,
  canRunRoles,
  cleanupRoles,
  freshStack,
  type RoleProc,
  type Stack,
  startRole,
  waitForLog,
} from './roles.ts';

let front: Front;
let stack: Stack;

beforeAll(async () => {
  if (!canRunRoles) {
    return;
  }
  front = await startClickHouseFront({ user: CH_USER, password: CH_PASSWORD });
  stack = await freshStack();
}, 60_000);

afterAll(async () => {
  await cleanupRoles();
  await stack?.close();
  await front?.close();
});

describe.skipIf(!canRunRoles)('four processes starting together on empty stores', () => {
  it('when two api and two worker processes start at once, then all start, migrations are recorded once, and one default project is created and announced once', async () => {
    const env = {
      DATABASE_URL: stack.databaseUrl,
      REDIS_URL: stack.redis.url,
      CLICKHOUSE_URL: front.url,
      CLICKHOUSE_USER: CH_USER,
      CLICKHOUSE_PASSWORD: CH_PASSWORD,
      SECRETS_KEY: stack.secretsKey,
    };
    const procs: RoleProc[] = await Promise.all([
      startRole('api', env),
      startRole('api', env),
      startRole('worker', env),
      startRole('worker', env),
    ]);
    await Promise.all(
      procs.map((p) =>
        p.role === 'api' ? p.child.waitFor('Server listening', 150_000) : waitForLog(p, 'workers started', 150_000),
      ),
    );
    const banners = procs.map((p) => banner(p.child.stdout())).filter(Boolean);
    expect(banners).toHaveLength(1);
    const projects = await stack.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM projects`;
    expect(projects[0]?.n).toBe(1);
    const pg = await stack.sql<{ n: number; d: number }[]>`
      SELECT count(*)::int AS n, count(DISTINCT version)::int AS d FROM schema_migrations`;
    expect(pg[0]?.n).toBe(pg[0]?.d);
    const ch = await front.rows<{ n: string; d: string }>(
      'SELECT toString(count()) AS n, toString(uniqExact(version)) AS d FROM schema_migrations',
    );
    expect(ch[0]?.n).toBe(ch[0]?.d);
    // Each applied migration was logged by one process only.
    const applied = procs.flatMap((p) =>
      p
        .logs()
        .filter((l) => l.msg === 'clickhouse migration applied')
        .map((l) => String(l.migration)),
    );
    expect(applied.length).toBe(new Set(applied).size);
    expect(applied.length).toBe(Number(ch[0]?.d));
    for (const p of procs) {
      const r = p.role === 'api' ? await fetch(`${p.baseUrl}/readyz`) : undefined;
      if (r) {
        expect(r.status).toBe(200);
      }
    }
  }, 240_000);
});
