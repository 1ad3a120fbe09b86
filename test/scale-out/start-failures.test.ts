// README "Configuration": "A bad value stops the start with a message that names the setting."
// Settings that parse but point at the wrong ClickHouse credentials or database, a missing Postgres
// database, or at nothing, stop an api or worker process with one line on stderr naming the
// setting (the URL's password masked), exit code 1, and no stack trace (it is in the debug log, and
// the ClickHouse client prints nothing of its own).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Front, startClickHouseFront } from '../support/ch-front.ts';
import { freePort } from '../support/processes.ts';
import { CH_PASSWORD, CH_USER, canRunRoles, cleanupRoles, freshStack, type Stack, startRole } from './roles.ts';

let front: Front;
let stack: Stack;
let base: Record<string, string>;

beforeAll(async () => {
  if (!canRunRoles) {
    return;
  }
  front = await startClickHouseFront({ user: CH_USER, password: CH_PASSWORD });
  stack = await freshStack();
  base = {
    DATABASE_URL: stack.databaseUrl,
    REDIS_URL: stack.redis.url,
    CLICKHOUSE_URL: front.url,
    CLICKHOUSE_USER: CH_USER,
    CLICKHOUSE_PASSWORD: CH_PASSWORD,
    SECRETS_KEY: stack.secretsKey,
  };
}, 60_000);

afterAll(async () => {
  await cleanupRoles();
  await stack?.close();
  await front?.close();
});

/** Starts the role, waits for its exit, and returns what it said. */
async function failedStart(role: 'api' | 'worker', env: Record<string, string>) {
  const p = await startRole(role, { ...base, ...env });
  const exit = await p.child.waitExit(60_000);
  const stderr = p.child.stderr();
  return { exit, stderr, stdout: p.child.stdout() };
}

const STACK_LINE = /^\s+at .+\(?.*:\d+:\d+\)?$/m;

describe.skipIf(!canRunRoles)('service-mode start against a ClickHouse it cannot use', () => {
  it('when CLICKHOUSE_PASSWORD is wrong, then the api exits 1 with a message naming the ClickHouse credentials and no stack trace', async () => {
    const r = await failedStart('api', { CLICKHOUSE_PASSWORD: 'wrong' });
    expect(r.exit.code).toBe(1);
    expect(r.stderr).toMatch(
      /^startup failed: CLICKHOUSE_USER\/CLICKHOUSE_PASSWORD: ClickHouse at http:\/\/127\.0\.0\.1:\d+\/ refused them: attr: Authentication failed[^\n]*\n$/,
    );
    expect(r.stderr).not.toMatch(STACK_LINE);
  }, 90_000);

  it('when CLICKHOUSE_DATABASE names no database, then the worker exits 1 with a message naming CLICKHOUSE_DATABASE and no stack trace', async () => {
    const r = await failedStart('worker', { CLICKHOUSE_DATABASE: 'nope' });
    expect(r.exit.code).toBe(1);
    expect(r.stderr).toMatch(
      /^startup failed: CLICKHOUSE_DATABASE: ClickHouse at http:\/\/127\.0\.0\.1:\d+\/ has no database 'nope': [^\n]*\n$/,
    );
    expect(r.stderr).not.toMatch(STACK_LINE);
  }, 90_000);

  it('when CLICKHOUSE_URL points at a closed port, then the api exits 1 within a minute with a message naming CLICKHOUSE_URL and no stack trace', async () => {
    const port = await freePort();
    const r = await failedStart('api', { CLICKHOUSE_URL: `http://127.0.0.1:${port}` });
    expect(r.exit.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `^startup failed: CLICKHOUSE_URL: nothing answers at http://127\\.0\\.0\\.1:${port}/: [^\\n]*ECONNREFUSED[^\\n]*\\n$`,
      ),
    );
    expect(r.stderr).not.toMatch(STACK_LINE);
  }, 90_000);

  it('when DATABASE_URL names a database that does not exist, then the worker exits 1 with one line naming DATABASE_URL, the password masked, and no stack trace', async () => {
    const u = new URL(stack.databaseUrl);
    u.pathname = '/roles_missing_db';
    u.password = 'pg-secret-9';
    const r = await failedStart('worker', { DATABASE_URL: u.toString() });
    expect(r.exit.code).toBe(1);
    expect(r.stderr).toMatch(
      /^startup failed: DATABASE_URL: Postgres at postgres:\/\/\S+:xxxxx@\S+\/roles_missing_db refused it: database "roles_missing_db" does not exist\n$/,
    );
    expect(`${r.stdout}${r.stderr}`).not.toContain('pg-secret-9');
    expect(r.stderr).not.toMatch(STACK_LINE);
  }, 90_000);

  it('when LOG_LEVEL is debug, then the refused start also logs the driver error with its stack, as one JSON line', async () => {
    const r = await failedStart('api', { CLICKHOUSE_DATABASE: 'nope', LOG_LEVEL: 'debug' });
    expect(r.exit.code).toBe(1);
    expect(r.stderr).toMatch(/^startup failed: CLICKHOUSE_DATABASE: /);
    const line = r.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg?: string; err?: { stack?: string } })
      .find((l) => l.msg === 'a store refused this process at start');
    expect(line?.err?.stack).toMatch(STACK_LINE);
    expect(r.stdout.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('{'))).toEqual([]);
  }, 90_000);
});
