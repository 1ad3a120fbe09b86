// Split roles under faults, with ClickHouse reached over HTTP: a worker SIGKILLed mid-load and
// started again, and ClickHouse unreachable for a few seconds. Every fact must still reach
// ClickHouse exactly once (reliability-catalog I2), and the processes' output must stay what
// LOG_LEVEL asks for (README "Configuration": LOG_LEVEL `silent` … ; JSON log lines): the
// ClickHouse client printed every failed request as multi-line text on stderr.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Front } from '../support/ch-front.ts';
import { backlog, chCounts, checkExactlyOnce, createCampaign, type Device, deviceFlow } from './drive.ts';
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
let workerA: RoleProc;
let workerB: RoleProc;
let creds: Banner;
let campaign: { displayId: string; id: number };
const devices: Device[] = [];

beforeAll(async () => {
  if (!canRunRoles) {
    return;
  }
  ({ front, stack, env } = await openRoleStores());
  api = await startRole('api', env);
  await api.child.waitFor('Server listening', 120_000);
  [workerA, workerB] = await Promise.all([startRole('worker', env), startRole('worker', env)]);
  await Promise.all([waitForLog(workerA, 'workers started', 120_000), waitForLog(workerB, 'workers started', 120_000)]);
  creds = banner(api.child.stdout()) as Banner;
  campaign = await createCampaign(api.baseUrl, stack.sql, creds.projectId, creds.serverKey);
}, 180_000);

afterAll(async () => {
  await closeRoleStores({ front, stack });
});

function runLoad(): { stop: () => Promise<Device[]> } {
  const mine: Device[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      mine.push(await deviceFlow(api.baseUrl, creds.token, campaign.displayId));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return mine;
    },
  };
}

async function drained(timeoutMs: number): Promise<void> {
  await until(
    'attribution settled and the outbox drained',
    async () => {
      const b = await backlog(stack.sql, creds.projectId);
      return b.pending === 0 && b.outbox === 0;
    },
    timeoutMs,
  );
}

describe.skipIf(!canRunRoles)('split roles under faults, ClickHouse over HTTP', () => {
  it('when one of two workers is SIGKILLed mid-load and started again, then every fact reaches ClickHouse exactly once and every install is attributed', async () => {
    const load = runLoad();
    await new Promise((r) => setTimeout(r, 3000));
    workerA.child.proc.kill('SIGKILL');
    await workerA.child.waitExit(10_000);
    await new Promise((r) => setTimeout(r, 1500));
    workerA = await startRole('worker', env);
    await waitForLog(workerA, 'workers started', 120_000);
    await new Promise((r) => setTimeout(r, 1500));
    devices.push(...(await load.stop()));
    await drained(120_000);
    const counts = await chCounts(front, creds.projectId);
    expect(devices.length).toBeGreaterThan(3);
    expect(checkExactlyOnce(counts, devices)).toEqual([]);
    const methods = await stack.sql<{ m: string | null; n: number }[]>`
      SELECT attribution_method AS m, count(*)::int AS n FROM installs WHERE project_id = ${creds.projectId} GROUP BY 1`;
    expect(methods).toEqual([{ m: 'play_referrer', n: devices.length }]);
  }, 240_000);

  it('when ClickHouse is unreachable for a few seconds under load, then the api /readyz says clickhouse down (503) and after it is back every fact is stored exactly once', async () => {
    const load = runLoad();
    await new Promise((r) => setTimeout(r, 1500));
    front.setDown(true);
    await new Promise((r) => setTimeout(r, 500));
    const during = await fetch(`${api.baseUrl}/readyz`);
    expect(during.status).toBe(503);
    expect(await during.json()).toEqual({
      status: 'not ready',
      checks: { postgres: 'ok', clickhouse: 'down', redis: 'ok' },
    });
    await new Promise((r) => setTimeout(r, 3500));
    front.setDown(false);
    await new Promise((r) => setTimeout(r, 1500));
    devices.push(...(await load.stop()));
    await drained(120_000);
    const counts = await chCounts(front, creds.projectId);
    expect(checkExactlyOnce(counts, devices)).toEqual([]);
  }, 240_000);

  it('when ClickHouse was unreachable, then the workers wrote only JSON log lines (no multi-line text from the ClickHouse client on stderr)', () => {
    const seen = [api, workerA, workerB].map((p, i) => {
      const stray = p.child
        .stderr()
        .split('\n')
        .filter((l) => l.trim() !== '' && !l.startsWith('{'));
      return { process: `${p.role} ${i}`, strayLines: stray.length, first: stray.slice(0, 2) };
    });
    expect(seen).toEqual(seen.map((s) => ({ process: s.process, strayLines: 0, first: [] })));
    // At LOG_LEVEL=info the client's own events (debug detail) are not logged either.
    const fromClient = [api, workerA, workerB].flatMap((p) => p.logs().filter((l) => 'clickhouseClient' in l));
    expect(fromClient).toEqual([]);
  });
});
