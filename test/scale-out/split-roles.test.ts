// README "Roles and scaling out": ROLE=api runs the HTTP API only, ROLE=worker the job workers, the
// fact writer and the cron schedule only, with no HTTP port; api and worker pass jobs through Redis;
// "Every process (API, worker or CLI) applies pending Postgres and ClickHouse migrations when it
// starts. Postgres advisory locks serialise migrations, so several processes can start at once."
// Here: separate child processes over a fresh empty database, a private Redis and a ClickHouse
// reached over HTTP (a front over the real engine, with credentials), driven over real HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Front } from '../support/ch-front.ts';
import { backlog, chCounts, checkExactlyOnce, clientPost, createCampaign, type Device, deviceFlow } from './drive.ts';
import {
  type Banner,
  banner,
  canRunRoles,
  closeRoleStores,
  openRoleStores,
  type RoleProc,
  type Stack,
  startRole,
  until,
  waitForLog,
} from './roles.ts';

let front: Front;
let stack: Stack;
let env: Record<string, string>;
let api: RoleProc;
let worker: RoleProc;
let creds: Banner;
let campaign: { displayId: string; id: number };
const devices: Device[] = [];

beforeAll(async () => {
  if (!canRunRoles) {
    return;
  }
  ({ front, stack, env } = await openRoleStores());
}, 60_000);

afterAll(async () => {
  await closeRoleStores({ front, stack });
});

async function listening(port: number): Promise<boolean> {
  try {
    await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(1000) });
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(!canRunRoles)('ROLE=api and ROLE=worker as separate processes over service stores', () => {
  it('when an api and a worker start together on an empty database, then both start, migrations are applied once, the api prints the first-start banner and the worker binds no port', async () => {
    [api, worker] = await Promise.all([startRole('api', env), startRole('worker', env)]);
    await Promise.all([api.child.waitFor('Server listening', 120_000), waitForLog(worker, 'workers started', 120_000)]);
    const b = banner(api.child.stdout());
    expect(b).toBeDefined();
    creds = b as Banner;
    expect(banner(worker.child.stdout())).toBeUndefined();
    expect(await listening(worker.port)).toBe(false);
    // Each migration recorded once, in both stores.
    const pg = await stack.sql<{ n: number; d: number }[]>`
      SELECT count(*)::int AS n, count(DISTINCT version)::int AS d FROM schema_migrations`;
    expect(pg[0]?.n).toBe(pg[0]?.d);
    const ch = await front.rows<{ n: string; d: string }>(
      'SELECT toString(count()) AS n, toString(uniqExact(version)) AS d FROM schema_migrations',
    );
    expect(ch[0]?.n).toBe(ch[0]?.d);
    expect(Number(ch[0]?.n)).toBeGreaterThan(20);
    // The start line names the role and the mode.
    const startLine = (p: RoleProc) => p.logs().find((l) => l.msg === 'starting');
    expect(startLine(api)).toMatchObject({ role: 'api', mode: 'service' });
    expect(startLine(worker)).toMatchObject({ role: 'worker', mode: 'service' });
    expect(api.logs().some((l) => l.msg === 'workers started')).toBe(false);
  }, 180_000);

  it('when the api process checks its health, then /healthz is 200 and /readyz names postgres, clickhouse and redis ok', async () => {
    const h = await fetch(`${api.baseUrl}/healthz`);
    expect(h.status).toBe(200);
    expect(await h.json()).toEqual({ status: 'ok' });
    const r = await fetch(`${api.baseUrl}/readyz`);
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({
      status: 'ready',
      checks: { postgres: 'ok', clickhouse: 'ok', redis: 'ok' },
    });
  });

  it('when the worker is stopped and clients use the api, then the api answers but runs no job, no fact writer and no cron (installs stay pending, facts wait in the outbox)', async () => {
    const exit = await worker.stop('SIGTERM');
    expect(exit.code).toBe(0);
    campaign = await createCampaign(api.baseUrl, stack.sql, creds.projectId, creds.serverKey);
    for (let i = 0; i < 3; i++) {
      devices.push(await deviceFlow(api.baseUrl, creds.token, campaign.displayId));
    }
    // Longer than the fact writer's 1 s round and a reconcile tick's worth of slack.
    await new Promise((r) => setTimeout(r, 4000));
    const b = await backlog(stack.sql, creds.projectId);
    expect(b.pending).toBe(3);
    expect(b.outbox).toBeGreaterThan(0);
    const counts = await chCounts(front, creds.projectId);
    expect(counts.clicks.size + counts.installs.size + counts.events.size).toBe(0);
  }, 60_000);

  it('when a worker starts again, then every fact reaches ClickHouse exactly once and each install is attributed to the clicked campaign by its Play referrer', async () => {
    worker = await startRole('worker', env);
    await waitForLog(worker, 'workers started', 120_000);
    await until(
      'attribution settled and the outbox drained',
      async () => {
        const b = await backlog(stack.sql, creds.projectId);
        return b.pending === 0 && b.outbox === 0;
      },
      60_000,
    );
    const counts = await chCounts(front, creds.projectId);
    expect(checkExactlyOnce(counts, devices)).toEqual([]);
    const rows = await stack.sql<{ m: string | null; c: number | null }[]>`
      SELECT attribution_method AS m, campaign_id AS c FROM installs WHERE project_id = ${creds.projectId}`;
    expect(rows.map((r) => [r.m, r.c])).toEqual(devices.map(() => ['play_referrer', campaign.id]));
    const d = devices[0] as Device;
    const res = await clientPost(api.baseUrl, 'attribution-data', {
      token: creds.token,
      platform: 'ANDROID',
      install_instance_id: d.iid,
    });
    expect(res.status).toBe(200);
    expect(res.text).toContain(campaign.displayId);
  }, 180_000);

  it('when two workers run and one is stopped with SIGTERM mid-load and started again, then nothing is lost or doubled', async () => {
    const second = await startRole('worker', env);
    await waitForLog(second, 'workers started', 120_000);
    const mine: Device[] = [];
    let stopped = false;
    const load = (async () => {
      while (!stopped) {
        mine.push(await deviceFlow(api.baseUrl, creds.token, campaign.displayId));
      }
    })();
    await new Promise((r) => setTimeout(r, 3000));
    const exit = await worker.stop('SIGTERM');
    expect(exit.code).toBe(0);
    await new Promise((r) => setTimeout(r, 2000));
    worker = await startRole('worker', env);
    await waitForLog(worker, 'workers started', 120_000);
    await new Promise((r) => setTimeout(r, 2000));
    stopped = true;
    await load;
    devices.push(...mine);
    await until(
      'attribution settled and the outbox drained',
      async () => {
        const b = await backlog(stack.sql, creds.projectId);
        return b.pending === 0 && b.outbox === 0;
      },
      90_000,
    );
    const counts = await chCounts(front, creds.projectId);
    expect(mine.length).toBeGreaterThan(3);
    expect(checkExactlyOnce(counts, devices)).toEqual([]);
    const dead = await stack.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM fact_dead_letters`;
    expect(dead[0]?.n).toBe(0);
  }, 240_000);
});
