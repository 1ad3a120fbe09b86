// DELETE /api/v1/users/:user_id (GDPR; catalog D9; not in the spec): deletes one user's data from
// Postgres, the ClickHouse raw tables and the view targets fed by them, and the attribution-data
// cache, and reports what it removed. Campaign-family auth texts. Another project's key (or an
// unknown user) gets 404 and nothing is deleted; another user of the project is left alone.
// `users delete` runs the same deletion from the CLI.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { USER_DATA_TABLES } from '../../../src/domain/facts/tables.ts';
import { attributionCacheKey } from '../../../src/domain/identity/read-attribution.ts';
import { countUserRowsIn, type UserKeys } from '../../../src/store/clickhouse/user-data.ts';
import {
  attribute,
  attributedInstall,
  attributionData,
  campaignWithListings,
  clickLink,
  flushFacts,
  init,
  post,
  type Res,
  randomIp,
} from '../../support/client.ts';
import { signUp } from '../../support/commerce.ts';
import {
  chJson,
  newProject,
  processDatabaseUrl,
  type TestProject,
  useHarness,
  withAppOver,
} from '../../support/harness.ts';
import { cleanEnv, killStartedChildren, startNode } from '../../support/processes.ts';
import { postWeb, sdkPageView } from '../../support/web.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });
const dirs: string[] = [];
afterAll(async () => {
  await killStartedChildren();
  for (const d of dirs) {
    await rm(d, { recursive: true, force: true });
  }
});

const DELETED = 'User data deleted successfully!';
const NOT_FOUND = { msg: 'User not found!', status: 404 };

function del(userId: string, headers: Record<string, string>): Promise<Res> {
  return h().app.inject({
    method: 'DELETE',
    url: `/api/v1/users/${encodeURIComponent(userId)}`,
    headers,
  }) as Promise<Res>;
}

/** A user on an attributed install, with a sign-up, an event, a payment and a cached attribution answer. */
async function activeUser(p: TestProject, userId: string) {
  const { campaign, iid, clickId } = await attributedInstall(h(), p);
  await signUp(h(), p, iid, userId);
  const base = { token: p.token, platform: 'ANDROID', install_instance_id: iid };
  expect((await post(h(), 'capture-event', { ...base, event_name: 'level_up', event_data: {} })).statusCode).toBe(200);
  expect((await post(h(), 'capture-payment', { ...base, amount: 9.99, payment_id: `pay-${userId}` })).statusCode).toBe(
    201,
  );
  expect((await attributionData(h(), p.token, iid)).statusCode).toBe(200);
  return { campaign, iid, clickId };
}

async function chRows(keys: UserKeys): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of USER_DATA_TABLES) {
    out[t.table] = await countUserRowsIn(h().deps.ch, t.table, t.by, keys);
  }
  return out;
}

/** A click's c: row in clicks_by_key, counted by its match key alone (no USER_DATA_TABLES rule). */
async function clickKeyRows(projectId: string, clickId: string): Promise<number> {
  const rs = await h().deps.ch.query({
    query: `SELECT toUInt64(count()) AS n FROM clicks_by_key WHERE project_id = {p:String} AND match_key = {k:String}`,
    format: 'JSONEachRow',
    query_params: { p: projectId, k: `c:${clickId}` },
  });
  return Number((await rs.json<{ n: string }>())[0]?.n);
}

async function pgRows(p: TestProject, userId: string, iid: string) {
  const { sql } = h().deps;
  const [r] = await sql<{ users: number; installs: number; payments: number; outbox: number }[]>`
    SELECT (SELECT count(*)::int FROM app_users WHERE project_id = ${p.project.id} AND user_id = ${userId}) AS users,
      (SELECT count(*)::int FROM installs WHERE project_id = ${p.project.id} AND install_instance_id = ${iid}) AS installs,
      (SELECT count(*)::int FROM payments WHERE project_id = ${p.project.id} AND user_id = ${userId}) AS payments,
      (SELECT count(*)::int FROM fact_outbox WHERE project_id = ${p.project.id}) AS outbox`;
  return r;
}

describe('200', () => {
  it("when the project's key deletes a user, then every store forgets it, the report says what went, and other users stay", async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const gone = await activeUser(p, 'user-gone');
    const kept = await activeUser(p, 'user-kept');
    await flushFacts(h());
    const keys = { projectId: p.project.id, userId: 'user-gone', installIds: [gone.iid], clickIds: [gone.clickId] };
    const before = await chRows(keys);
    const keptKeys = { projectId: p.project.id, userId: 'user-kept', installIds: [kept.iid], clickIds: [kept.clickId] };
    const keptBefore = await chRows(keptKeys);

    const res = await del('user-gone', p.headers);

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      msg: DELETED,
      status: 200,
      data: {
        user_id: 'user-gone',
        install_instance_ids: [gone.iid],
        removed: {
          postgres: { app_users: 1, installs: 1, payments: 1, fact_outbox: 0, fact_dead_letters: 0 },
          clickhouse: before,
          cache: { attribution_data: 1 },
        },
        remaining: { clickhouse: 0 },
      },
    });
    expect(before).toMatchObject({
      signups: 1,
      events: 1,
      payments: 1,
      install_events: 1,
      attributions: 1,
      clicks: 1,
      clicks_by_key: 1,
      clicks_by_ip: 1,
    });
    expect(await clickKeyRows(p.project.id, gone.clickId)).toBe(0);
    expect(await clickKeyRows(p.project.id, kept.clickId)).toBe(1);
    expect(await chRows(keys)).toEqual(Object.fromEntries(Object.keys(before).map((t) => [t, 0])));
    expect(await pgRows(p, 'user-gone', gone.iid)).toEqual({ users: 0, installs: 0, payments: 0, outbox: 0 });
    expect(await deps.cache.get(attributionCacheKey(p.project.id, gone.iid))).toBeUndefined();
    expect(await chRows(keptKeys)).toEqual(keptBefore);
    expect(await pgRows(p, 'user-kept', kept.iid)).toEqual({ users: 1, installs: 1, payments: 1, outbox: 0 });
  });

  it("when the user was identified on a browser through the Web SDK, then its web events and that browser's anonymous ones go, another user's stay", async () => {
    const { deps } = h();
    const p = await newProject(deps);
    await activeUser(p, 'web-gone');
    const shared = randomUUID();
    const other = randomUUID();
    const sent = [
      sdkPageView(p.token, { visitor_id: shared }), // before lr.identify
      sdkPageView(p.token, { visitor_id: shared, event_type: 'identify', user_id: 'web-gone' }),
      sdkPageView(p.token, { visitor_id: shared, user_id: 'web-other' }), // someone else on that browser
      sdkPageView(p.token, { visitor_id: other }), // another browser, never identified
    ];
    for (const body of sent) {
      expect((await postWeb(h(), body)).statusCode).toBe(200);
    }
    await flushFacts(h());
    const rows = async () =>
      (
        await chJson<{ v: string; u: string }>(
          deps.ch,
          `SELECT visitor_id AS v, user_id AS u FROM web_events WHERE project_id = {p:String} ORDER BY v, u`,
          { p: p.project.id },
        )
      ).map((r) => `${r.v === shared ? 'shared' : 'other'}:${r.u}`);
    expect((await rows()).sort()).toEqual(['other:', 'shared:', 'shared:web-gone', 'shared:web-other']);

    const res = await del('web-gone', p.headers);

    expect(res.statusCode).toBe(200);
    expect(res.json().data.removed.clickhouse.web_events).toBe(2);
    expect((await rows()).sort()).toEqual(['other:', 'shared:web-other']);
  });

  it('when the user is deleted, then attributed-users, get-attribution-result and attribution-data no longer show it', async () => {
    const p = await newProject(h().deps);
    const { campaign, iid } = await activeUser(p, 'user-shown');
    await flushFacts(h());
    const listed = () =>
      h().app.inject({
        method: 'GET',
        url: `/api/v1/attributed-users?display_id=${campaign.displayId}`,
        headers: p.headers,
      });
    const shown = (await listed()).json();
    expect([shown.data?.total_users, JSON.stringify(shown).includes('user-shown')]).toEqual([1, true]);

    expect((await del('user-shown', p.headers)).statusCode).toBe(200);

    const users = (await listed()).json();
    const result = await h().app.inject({
      method: 'GET',
      url: '/api/v1/get-attribution-result?user_id=user-shown',
      headers: p.headers,
    });
    const data = await attributionData(h(), p.token, iid);
    expect(users.data.total_users).toBe(0);
    expect(JSON.stringify(users)).not.toContain('user-shown');
    expect(result.statusCode).toBe(204);
    expect(result.body).toBe('');
    expect(data.statusCode).toBe(400);
    expect(data.json()).toEqual({ msg: 'Install not found. Call init first.', status: 400 });
  });

  it('when a fact of the user still waits in the outbox, then it is deleted there too', async () => {
    const p = await newProject(h().deps);
    const iid = randomUUID();
    expect((await init(h(), p.token, { install_instance_id: iid })).statusCode).toBe(202);
    await attribute(h(), p, iid);
    await signUp(h(), p, iid, 'user-waiting');

    const res = await del('user-waiting', p.headers);

    expect(res.json().data.removed.postgres).toEqual({
      app_users: 1,
      installs: 1,
      payments: 0,
      fact_outbox: 3,
      fact_dead_letters: 0,
    });
    expect(await pgRows(p, 'user-waiting', iid)).toEqual({ users: 0, installs: 0, payments: 0, outbox: 0 });
  });

  it.each([
    ['256 characters', `u-${'a'.repeat(254)}`],
    ['256 emoji', '🎉'.repeat(256)],
  ])('when the user id is %s (the most trigger takes), then it is deleted', async (_case, userId) => {
    // The router's path-parameter cap (200) answered 414 for these ids, which trigger accepts.
    const p = await newProject(h().deps);
    const iid = randomUUID();
    expect((await init(h(), p.token, { install_instance_id: iid })).statusCode).toBe(202);
    await attribute(h(), p, iid);
    await signUp(h(), p, iid, userId);

    const res = await del(userId, p.headers);

    expect(res.statusCode).toBe(200);
    expect(res.json().data.removed.postgres).toMatchObject({ app_users: 1, installs: 1 });
    expect(await pgRows(p, userId, iid)).toEqual({ users: 0, installs: 0, payments: 0, outbox: 0 });
  });
});

describe('404', () => {
  it("when another project's key names the user, then 404 and nothing is deleted", async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const other = await newProject(deps);
    const { iid, clickId } = await activeUser(p, 'user-a');
    await flushFacts(h());
    const keys = { projectId: p.project.id, userId: 'user-a', installIds: [iid], clickIds: [clickId] };
    const before = await chRows(keys);

    const res = await del('user-a', other.headers);

    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual(NOT_FOUND);
    expect(await chRows(keys)).toEqual(before);
    expect(await pgRows(p, 'user-a', iid)).toEqual({ users: 1, installs: 1, payments: 1, outbox: 0 });
  });

  it('when the user is unknown or already deleted, then 404', async () => {
    const p = await newProject(h().deps);
    const iid = randomUUID();
    expect((await init(h(), p.token, { install_instance_id: iid })).statusCode).toBe(202);
    await signUp(h(), p, iid, 'user-twice');
    expect((await del('user-twice', p.headers)).statusCode).toBe(200);

    expect((await del('user-twice', p.headers)).json()).toEqual(NOT_FOUND);
    expect((await del('nobody', p.headers)).json()).toEqual(NOT_FOUND);
  });
});

describe('503', () => {
  it('when the attribution cache cannot be cleared (Redis away), then 503, nothing is deleted, and a retry deletes everything', async () => {
    // Cleared last, a failing cache answered 500 after the data was gone: the install stayed served
    // from the cache for 24 h and a retry found nothing to delete (404).
    const { deps } = h();
    const p = await newProject(deps);
    const { iid, clickId } = await activeUser(p, 'user-cache');
    await flushFacts(h());
    const keys = { projectId: p.project.id, userId: 'user-cache', installIds: [iid], clickIds: [clickId] };
    const before = await chRows(keys);
    const away = { ...deps.cache, del: () => Promise.reject(new Error('Command timed out')) };
    const res = await withAppOver(h(), { cache: away }, (app) =>
      app.inject({ method: 'DELETE', url: '/api/v1/users/user-cache', headers: p.headers }),
    );

    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ msg: 'Service temporarily unavailable. Please retry later.', status: 503 });
    expect(res.headers['retry-after']).toBe('5');
    expect(await pgRows(p, 'user-cache', iid)).toEqual({ users: 1, installs: 1, payments: 1, outbox: 0 });
    expect(await chRows(keys)).toEqual(before);

    expect((await del('user-cache', p.headers)).statusCode).toBe(200);
    expect(await deps.cache.get(attributionCacheKey(p.project.id, iid))).toBeUndefined();
    expect((await attributionData(h(), p.token, iid)).statusCode).toBe(400);
  });
});

describe('a deletion cut after its Postgres step', () => {
  it("when ClickHouse fails once Postgres forgot the installs, then a retry still deletes the clicks carrying the device's ad id", async () => {
    // The ad id is read from the installs, which the Postgres step deletes: a retry read none and
    // left every click carrying it that no decision named (here one opened after the install).
    const { deps } = h();
    const p = await newProject(deps);
    const later = await campaignWithListings(deps, p, { name: 'Later' });
    const gaid = randomUUID();
    const iid = randomUUID();
    const installed = await init(h(), p.token, { install_instance_id: iid, device_data: { gaid } }, randomIp());
    expect(installed.statusCode).toBe(202);
    expect((await attribute(h(), p, iid))?.method).toBe('organic');
    await signUp(h(), p, iid, 'user-cut');
    await clickLink(h(), later, { ip: randomIp(), query: `gaid=${gaid}`, agoMs: 0 });
    await flushFacts(h());
    const gaidClicks = async () => {
      const rs = await deps.ch.query({
        query: 'SELECT toUInt64(count()) AS n FROM clicks WHERE project_id = {p:String} AND ad_id = {g:String}',
        format: 'JSONEachRow',
        query_params: { p: p.project.id, g: gaid },
      });
      return Number((await rs.json<{ n: string }>())[0]?.n);
    };
    expect(await gaidClicks()).toBe(1);
    let cuts = 0;
    const cut = new Proxy(deps.ch, {
      get(target, key, receiver) {
        if (key !== 'command') {
          return Reflect.get(target, key, receiver);
        }
        return (arg: Parameters<typeof target.command>[0]) => {
          if (cuts === 0 && /^ALTER TABLE \S+ DELETE/.test(arg.query)) {
            cuts++;
            return Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:8123'));
          }
          return target.command(arg);
        };
      },
    });

    const first = await withAppOver(h(), { ch: cut }, (app) =>
      app.inject({ method: 'DELETE', url: '/api/v1/users/user-cut', headers: p.headers }),
    );
    expect(cuts).toBe(1);
    expect(first.statusCode).toBeGreaterThanOrEqual(500);
    expect(await pgRows(p, 'user-cut', iid)).toMatchObject({ users: 0, installs: 0 });

    expect((await del('user-cut', p.headers)).statusCode).toBe(200);
    expect(await gaidClicks()).toBe(0);
    const [kept] = await deps.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM user_deletions WHERE project_id = ${p.project.id}`;
    expect(kept?.n).toBe(0);
  });
});

describe('400 and 401', () => {
  it('when the user id is empty once stored-form, then 400 User ID is required!', async () => {
    const p = await newProject(h().deps);
    const res = await h().app.inject({ method: 'DELETE', url: '/api/v1/users/%00', headers: p.headers });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ msg: 'User ID is required!', status: 400 });
  });

  it('when the key is missing or wrong, then 401 with the campaign-family texts', async () => {
    const missing = await del('u', {});
    const wrong = await del('u', { 'service-key': 'sk_wrong' });
    expect([missing.statusCode, missing.json()]).toEqual([401, { msg: 'Server key missing!', status: 401 }]);
    expect([wrong.statusCode, wrong.json()]).toEqual([401, { msg: 'Server key invalid!', status: 401 }]);
  });
});

describe('users delete (CLI)', () => {
  it('when run as a process against the project, then it deletes the user and prints the report as JSON', async () => {
    const p = await newProject(h().deps);
    const iid = randomUUID();
    expect((await init(h(), p.token, { install_instance_id: iid })).statusCode).toBe(202);
    await signUp(h(), p, iid, 'user-cli');
    // The CLI opens its own (empty) ClickHouse: one engine per process, and this one has the test's.
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'attribution-users-cli-'));
    dirs.push(dataDir);
    const env = cleanEnv({ DATABASE_URL: await processDatabaseUrl(), DATA_DIR: dataDir, LOG_LEVEL: 'silent' });

    const run = startNode(
      [
        '--import',
        'tsx',
        'src/cli/main.ts',
        'users',
        'delete',
        '--project',
        p.project.id,
        '--user-id',
        'user-cli',
        '--json',
      ],
      env,
    );
    const exit = await run.waitExit(90_000);

    expect(exit, run.stderr()).toEqual({ code: 0, signal: null });
    expect(JSON.parse(run.stdout())).toMatchObject({
      user_id: 'user-cli',
      install_instance_ids: [iid],
      // Nothing was cached (no attribution-data call): the report counts cached answers removed.
      removed: { postgres: { app_users: 1, installs: 1, payments: 0, fact_outbox: 2 }, cache: { attribution_data: 0 } },
      remaining: { clickhouse: 0 },
    });
    expect(await pgRows(p, 'user-cli', iid)).toEqual({ users: 0, installs: 0, payments: 0, outbox: 0 });
  }, 120_000);
});
