// README "Endpoints": GET /readyz answers 503 `not ready` "if a store is down". ClickHouse was
// checked with the client's ping(), ClickHouse's /ping, which needs no credentials and names no
// database: it said ok while every query was refused (a rotated password, a dropped database). The
// check is now an authenticated SELECT 1 in the configured database. Here an api process reaches
// ClickHouse over HTTP (the front over the real engine, with credentials).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Front, startClickHouseFront } from '../support/ch-front.ts';
import {
  CH_PASSWORD,
  CH_USER,
  canRunRoles,
  cleanupRoles,
  freshStack,
  type RoleProc,
  type Stack,
  startRole,
} from './roles.ts';

let front: Front;
let stack: Stack;
let api: RoleProc;

beforeAll(async () => {
  if (!canRunRoles) {
    return;
  }
  front = await startClickHouseFront({ user: CH_USER, password: CH_PASSWORD });
  await front.rows('CREATE DATABASE IF NOT EXISTS attribution ENGINE = Atomic');
  stack = await freshStack();
  api = await startRole('api', {
    DATABASE_URL: stack.databaseUrl,
    REDIS_URL: stack.redis.url,
    CLICKHOUSE_URL: front.url,
    CLICKHOUSE_USER: CH_USER,
    CLICKHOUSE_PASSWORD: CH_PASSWORD,
    CLICKHOUSE_DATABASE: 'attribution',
    SECRETS_KEY: stack.secretsKey,
  });
  await api.child.waitFor('Server listening', 120_000);
}, 180_000);

afterAll(async () => {
  await cleanupRoles();
  await stack?.close();
  await front?.close();
});

async function readyz(): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${api.baseUrl}/readyz`);
  return { status: res.status, body: await res.json() };
}

const READY = { status: 200, body: { status: 'ready', checks: { postgres: 'ok', clickhouse: 'ok', redis: 'ok' } } };
const CLICKHOUSE_DOWN = {
  status: 503,
  body: { status: 'not ready', checks: { postgres: 'ok', clickhouse: 'down', redis: 'ok' } },
};

describe.skipIf(!canRunRoles)('GET /readyz of an api over a ClickHouse server', () => {
  it('when ClickHouse takes the credentials and has the database, then 200 ready', async () => {
    expect(await readyz()).toEqual(READY);
  });

  it('when ClickHouse no longer takes the password (rotated), then 503 naming clickhouse down, and 200 once it takes it again', async () => {
    front.setPassword('rotated-elsewhere');
    const refused = await readyz();
    front.setPassword(CH_PASSWORD);

    expect(refused).toEqual(CLICKHOUSE_DOWN);
    expect(await readyz()).toEqual(READY);
  });

  it('when the configured database was dropped, then 503 naming clickhouse down', async () => {
    await front.rows('DROP DATABASE attribution');

    expect(await readyz()).toEqual(CLICKHOUSE_DOWN);
  });
});
