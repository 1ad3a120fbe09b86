// docker-compose.yml runs the api and the worker with CLICKHOUSE_DATABASE=attribution, a database
// that is not the server's default (README "For data engineers": "the service's tables are in the
// database `attribution`"). Every table, view and query must live in that database, and the report
// must count what the worker stored there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Front, startClickHouseFront } from '../support/ch-front.ts';
import { backlog, checkExactlyOnce, createCampaign, type Device, deviceFlow } from './drive.ts';
import {
  type Banner,
  banner,
  CH_PASSWORD,
  CH_USER,
  canRunRoles,
  cleanupRoles,
  freshStack,
  type Stack,
  startRole,
  until,
  waitForLog,
} from './roles.ts';

let front: Front;
let stack: Stack;

beforeAll(async () => {
  if (!canRunRoles) {
    return;
  }
  front = await startClickHouseFront({ user: CH_USER, password: CH_PASSWORD });
  await front.rows('CREATE DATABASE IF NOT EXISTS attribution ENGINE = Atomic');
  stack = await freshStack();
}, 60_000);

afterAll(async () => {
  await cleanupRoles();
  await stack?.close();
  await front?.close();
});

describe.skipIf(!canRunRoles)('api and worker with CLICKHOUSE_DATABASE=attribution (the compose setup)', () => {
  it('when clients use the api, then every table is in `attribution`, nothing in `default`, each fact is stored once there and the report counts it', async () => {
    const env = {
      DATABASE_URL: stack.databaseUrl,
      REDIS_URL: stack.redis.url,
      CLICKHOUSE_URL: front.url,
      CLICKHOUSE_USER: CH_USER,
      CLICKHOUSE_PASSWORD: CH_PASSWORD,
      CLICKHOUSE_DATABASE: 'attribution',
      SECRETS_KEY: stack.secretsKey,
    };
    const [api, worker] = await Promise.all([startRole('api', env), startRole('worker', env)]);
    await Promise.all([api.child.waitFor('Server listening', 120_000), waitForLog(worker, 'workers started', 120_000)]);
    const creds = banner(api.child.stdout()) as Banner;
    const campaign = await createCampaign(api.baseUrl, stack.sql, creds.projectId, creds.serverKey);
    const devices: Device[] = [];
    for (let i = 0; i < 3; i++) {
      devices.push(await deviceFlow(api.baseUrl, creds.token, campaign.displayId));
    }
    await until('drained', async () => {
      const b = await backlog(stack.sql, creds.projectId);
      return b.pending === 0 && b.outbox === 0;
    });
    const inDefault = await front.rows<{ name: string }>("SELECT name FROM system.tables WHERE database = 'default'");
    expect(inDefault.map((r) => r.name)).toEqual([]);
    const inAttribution = await front.rows<{ name: string }>(
      "SELECT name FROM system.tables WHERE database = 'attribution'",
    );
    expect(inAttribution.map((r) => r.name)).toEqual(expect.arrayContaining(['clicks', 'campaign_daily', 'payments']));

    // The same counts as split-roles, read in `attribution`.
    const counts = await (async () => {
      const { chCounts } = await import('./drive.ts');
      const named: Front = {
        ...front,
        rows: (sql, params) => front.rows(sql.replace(/\bFROM (\w+)/g, 'FROM attribution.$1'), params),
      };
      return chCounts(named, creds.projectId);
    })();
    expect(checkExactlyOnce(counts, devices)).toEqual([]);

    const res = await fetch(`${api.baseUrl}/api/v1/reporting/campaigns`, {
      headers: { 'service-key': creds.serverKey },
    });
    const body = (await res.json()) as { data: { campaigns: Record<string, unknown>[] } };
    expect(res.status).toBe(200);
    const row = body.data.campaigns.find((c) => c.display_id === campaign.displayId) as Record<string, unknown>;
    expect(row).toMatchObject({ clicks: '3', installs: '3', 'sign-ups': '3' });
    expect(JSON.stringify(row)).toContain('$14.97');
  }, 180_000);
});
