// GDPR deletion: DELETE /api/v1/users/:user_id racing the writers of the user's data. README
// "users delete": the user's data goes "from Postgres, the ClickHouse raw tables and view targets,
// and the attribution cache"; domain/users/delete-user.ts waits for the fact batches claiming the
// outbox rows it deleted, and clears the cache twice. Each test holds one writer at an exact point (a gated
// transaction, a held ClickHouse insert, a held cache write), lets the deletion run to its 200, then
// lets the writer finish, and looks for what is left of the user.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { flushFactBatch } from '../../src/domain/facts/flush-facts.ts';
import { attributionCacheKey } from '../../src/domain/identity/read-attribution.ts';
import type { Cache } from '../../src/store/redis/cache.ts';
import { callTool, mcpToken } from '../http/mcp/mcp-client.ts';
import { attributedInstall, attributionData, flushFacts, post } from '../support/client.ts';
import { registeredUser, signUp } from '../support/commerce.ts';
import { faultyClickHouse } from '../support/faulty-clickhouse.ts';
import { chJson, type Harness, newProject, type TestProject, useHarness } from '../support/harness.ts';
import { gatedBegin } from '../support/sql-gates.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

async function until(cond: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) {
      throw new Error('condition not reached');
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

function deleteUser(app: FastifyInstance, p: TestProject, userId: string) {
  return app.inject({ method: 'DELETE', url: `/api/v1/users/${encodeURIComponent(userId)}`, headers: p.headers });
}

/** Rows naming the user in ClickHouse's raw tables that carry a user_id. */
async function chUserRows(harness: Harness, p: TestProject, userId: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of ['signups', 'events', 'payments']) {
    const [row] = await chJson<{ n: number }>(
      harness.deps.ch,
      `SELECT toUInt32(count()) AS n FROM ${table} WHERE project_id = {p:String} AND user_id = {u:String}`,
      { p: p.project.id, u: userId },
    );
    out[table] = Number(row?.n ?? 0);
  }
  return out;
}

async function pgUserRows(harness: Harness, p: TestProject, userId: string) {
  const { sql } = harness.deps;
  const [r] = await sql<{ users: number; payments: number; outbox: number }[]>`
    SELECT (SELECT count(*)::int FROM app_users WHERE project_id = ${p.project.id} AND user_id = ${userId}) AS users,
      (SELECT count(*)::int FROM payments WHERE project_id = ${p.project.id} AND user_id = ${userId}) AS payments,
      (SELECT count(*)::int FROM fact_outbox WHERE project_id = ${p.project.id} AND row->>'user_id' = ${userId}) AS outbox`;
  return r;
}

describe('a capture in flight while the user is deleted', () => {
  it('when capture-payment resolved the user before the deletion and commits after it, then no payment of the deleted user is stored', async () => {
    // Rule 3: a payment is stored only for a registered user. The deletion answered 200, so the user
    // is not registered any more when the payment commits; its payments row and fact name a user
    // that the project, by the deletion's own report, no longer holds.
    const userId = `race-pay-${randomUUID().slice(0, 8)}`;
    const { p, iid } = await registeredUser(h(), userId);
    await flushFacts(h());
    const gate = gatedBegin(h().deps.sql, 'start');
    const app = await buildApp({ ...h().deps, sql: gate.sql });
    try {
      const capture = post({ app, deps: h().deps }, 'capture-payment', {
        token: p.token,
        platform: 'ANDROID',
        install_instance_id: iid,
        amount: 9.99,
        payment_id: `pay-${userId}`,
      });
      await gate.reached; // the user was resolved; its transaction has not started

      const del = await deleteUser(h().app, p, userId);
      gate.open();
      const captured = await capture;
      await flushFacts(h());

      expect(del.statusCode).toBe(200);
      expect(captured.statusCode).toBeLessThan(500);
      expect({ pg: await pgUserRows(h(), p, userId), ch: await chUserRows(h(), p, userId) }).toEqual({
        pg: { users: 0, payments: 0, outbox: 0 },
        ch: { signups: 0, events: 0, payments: 0 },
      });
    } finally {
      gate.open();
      await app.close();
    }
  });

  it('when capture-event resolved the user before the deletion and commits after it, then no event of the deleted user is stored', async () => {
    const userId = `race-evt-${randomUUID().slice(0, 8)}`;
    const { p, iid } = await registeredUser(h(), userId);
    await flushFacts(h());
    const gate = gatedBegin(h().deps.sql, 'start');
    const app = await buildApp({ ...h().deps, sql: gate.sql });
    try {
      const capture = post({ app, deps: h().deps }, 'capture-event', {
        token: p.token,
        platform: 'ANDROID',
        install_instance_id: iid,
        event_name: 'level_up',
        event_data: {},
        event_id: randomUUID(),
      });
      await gate.reached;

      const del = await deleteUser(h().app, p, userId);
      gate.open();
      const captured = await capture;
      await flushFacts(h());

      expect(del.statusCode).toBe(200);
      expect(captured.statusCode).toBeLessThan(500);
      expect({ pg: await pgUserRows(h(), p, userId), ch: await chUserRows(h(), p, userId) }).toEqual({
        pg: { users: 0, payments: 0, outbox: 0 },
        ch: { signups: 0, events: 0, payments: 0 },
      });
    } finally {
      gate.open();
      await app.close();
    }
  });
});

describe('a fact batch claimed while the user is deleted', () => {
  it('when a writer claims the user’s sign-up just before the deletion’s Postgres step, then the deletion waits for its insert and the sign-up does not stay in ClickHouse', async () => {
    // The deletion once looked for batches holding the user's facts before its Postgres step only;
    // a batch claimed after that look (and read into the writer's memory) was inserted after the
    // ClickHouse deletes, and the report still said remaining 0. It now waits for the batches that
    // claim the outbox rows it deleted. The insert is released while the deletion waits (after its
    // Postgres step committed): before the fix, ClickHouse's signups were already cleared by then.
    const userId = `race-writer-${randomUUID().slice(0, 8)}`;
    const { p } = await registeredUser(h(), userId); // install_events, attributions, signups wait in the outbox
    const faulty = faultyClickHouse(h().deps.ch);
    faulty.set('hang-then-land', { times: 1 });
    const gate = gatedBegin(h().deps.sql, 'start');
    const app = await buildApp({ ...h().deps, sql: gate.sql });
    try {
      const del = deleteUser(app, p, userId);
      await gate.reached; // the deletion found the user's keys and is about to delete in Postgres
      const flushing = flushFactBatch({ ...h().deps, ch: faulty.client }, 'signups');
      await until(() => faulty.stats.held === 1); // claimed, read, insert under way
      gate.open();
      await until(async () => ((await pgUserRows(h(), p, userId))?.outbox ?? 1) === 0);
      await new Promise((r) => setTimeout(r, 500));
      await faulty.release();
      const res = await del;
      await flushing;

      expect(res.statusCode).toBe(200);
      expect(res.json().data.remaining).toEqual({ clickhouse: 0 });
      expect(await chUserRows(h(), p, userId)).toEqual({ signups: 0, events: 0, payments: 0 });
    } finally {
      gate.open();
      await faulty.heal();
      await app.close();
    }
  });

  it('when the writer holding the user’s sign-up takes longer than the deletion waits, then the deletion reports it as remaining, and a re-run after it landed removes it', async () => {
    // The deletion waits up to 10 s for a batch holding the user's facts; a ClickHouse insert may
    // take up to 60 s before the writer gives up (CH_TIMEOUT_MS), and may land even then.
    const userId = `slow-writer-${randomUUID().slice(0, 8)}`;
    const { p } = await registeredUser(h(), userId);
    const faulty = faultyClickHouse(h().deps.ch);
    faulty.set('hang-then-land', { times: 1 });
    try {
      const flushing = flushFactBatch({ ...h().deps, ch: faulty.client }, 'signups');
      await until(() => faulty.stats.held === 1);
      const res = await deleteUser(h().app, p, userId);
      const [open] = await h().deps.sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM user_deletions WHERE project_id = ${p.project.id} AND user_id = ${userId}`;
      await faulty.release();
      await flushing;
      const landed = await chUserRows(h(), p, userId);
      const again = await deleteUser(h().app, p, userId);

      expect(res.statusCode).toBe(200);
      expect(res.json().data.remaining).toEqual({ clickhouse: 1 });
      expect(open?.n).toBe(1);
      expect(landed).toEqual({ signups: 1, events: 0, payments: 0 });
      expect(again.statusCode).toBe(200);
      expect(again.json().data.removed.clickhouse).toMatchObject({ signups: 1 });
      expect(again.json().data.remaining).toEqual({ clickhouse: 0 });
      expect(await chUserRows(h(), p, userId)).toEqual({ signups: 0, events: 0, payments: 0 });
    } finally {
      await faulty.heal();
    }
  }, 40_000);
});

describe('the attribution-data cache written while the user is deleted', () => {
  it('when attribution-data read the install before the deletion and caches its answer after it, then neither attribution-data nor MCP lookup_attribution answers for the deleted install', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const { iid } = await attributedInstall(h(), p);
    const userId = `race-cache-${randomUUID().slice(0, 8)}`;
    await signUp(h(), p, iid, userId);
    await flushFacts(h());
    const token = await mcpToken(deps, p);
    let reachedSet!: () => void;
    const setReached = new Promise<void>((r) => {
      reachedSet = r;
    });
    let openSet!: () => void;
    const setOpen = new Promise<void>((r) => {
      openSet = r;
    });
    const slowCache: Cache = {
      get: (k) => deps.cache.get(k),
      del: (k) => deps.cache.del(k),
      set: async (k, v, ttl) => {
        reachedSet();
        await setOpen;
        return deps.cache.set(k, v, ttl);
      },
    };
    const app = await buildApp({ ...deps, cache: slowCache });
    try {
      const answer = attributionData({ app, deps }, p.token, iid);
      await setReached; // the answer was read from Postgres; its cache write is under way

      const del = await deleteUser(h().app, p, userId);
      openSet();
      expect((await answer).statusCode).toBe(200);

      const again = await attributionData(h(), p.token, iid);
      const mcp = await callTool(h().app, token, 'lookup_attribution', { install_instance_id: iid });
      expect(del.statusCode).toBe(200);
      expect({
        cached: (await deps.cache.get(attributionCacheKey(p.project.id, iid))) !== undefined,
        attributionData: again.statusCode,
        mcpFound: mcp.data.found,
      }).toEqual({ cached: false, attributionData: 400, mcpFound: false });
    } finally {
      openSet();
      await app.close();
    }
  });
});
