// The fact pipeline's failure accounting (catalog I4, I5, F5): a row ClickHouse refuses is
// dead-lettered with the reason while the rest of its batch goes in; the operator fixes it and
// replays it with the CLI, and it arrives once (also when replayed again, or when it had landed).
// A fact writer SIGKILLed between its ClickHouse insert and its outbox delete loses nothing and
// duplicates nothing once a second writer finishes the work.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { runCli } from '../../src/cli/main.ts';
import { flushAllFacts } from '../../src/domain/facts/flush-facts.ts';
import { FACT_TABLES } from '../../src/domain/facts/tables.ts';
import { PG_MIGRATIONS } from '../../src/lib/paths.ts';
import { formatChTime, localDay } from '../../src/lib/time.ts';
import { insertOutboxRows, type OutboxRow } from '../../src/store/postgres/fact-outbox.ts';
import { migratePostgres } from '../../src/store/postgres/migrate.ts';
import { campaignWithListings, clickLink, randomIp } from '../support/client.ts';
import { chCounts, outboxRows } from '../support/fact-counts.ts';
import { newProject, testEnv, useHarness } from '../support/harness.ts';
import { cleanEnv, killStartedChildren, startNode } from '../support/processes.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  await killStartedChildren();
  for (const c of cleanups.reverse()) {
    await c();
  }
});

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, await testEnv(), { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

async function cliJson<T>(...argv: string[]): Promise<T> {
  const r = await cli(...argv, '--json');
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out) as T;
}

/** Five counted clicks of a new project's campaign, waiting in the outbox, plus a copy of one row. */
async function clicksWithTemplate() {
  const { deps } = h();
  const p = await newProject(deps);
  const campaign = await campaignWithListings(deps, p);
  for (let i = 0; i < 5; i++) {
    await clickLink(h(), campaign, { ip: randomIp() });
  }
  const [first] = await deps.sql<{ row: Record<string, unknown> }[]>`
    SELECT row FROM fact_outbox WHERE project_id = ${p.project.id} AND fact_table = 'clicks' ORDER BY seq LIMIT 1`;
  return { p, campaign, template: first?.row ?? {} };
}

type DeadLetterJson = { id: number; table: string; fact_id: string; project_id: string; reason: string };

describe('dead letters', () => {
  it('when ClickHouse refuses one row, then only it is dead-lettered with the reason, and after a fix and a replay it arrives once', async () => {
    const { deps } = h();
    const { p, campaign, template } = await clicksWithTemplate();
    const badId = `bad_${randomUUID()}`;
    await insertOutboxRows(deps.sql, [
      {
        table: 'clicks',
        factId: badId,
        projectId: p.project.id,
        row: { ...template, click_id: badId, campaign_id: 'not-a-number' },
      },
    ]);

    await flushAllFacts(deps, ['clicks']);

    expect(await chCounts(deps, 'clicks', p.project.id)).toEqual({ rows: 5, unique: 5 });
    expect(await outboxRows(deps, p.project.id)).toEqual({});
    const listed = await cliJson<{ counts: unknown[]; reasons: unknown[]; dead_letters: DeadLetterJson[] }>(
      'facts',
      'dead-letters',
      '--table',
      'clicks',
    );
    const mine = listed.dead_letters.filter((d) => d.project_id === p.project.id);
    expect(mine).toEqual([
      expect.objectContaining({ table: 'clicks', fact_id: badId, reason: expect.stringContaining('campaign_id') }),
    ]);
    expect(listed.counts).toContainEqual(expect.objectContaining({ table: 'clicks', pending: expect.any(Number) }));
    const deadId = mine[0]?.id as number;

    await deps.sql`UPDATE fact_dead_letters SET row = jsonb_set(row, '{campaign_id}', to_jsonb(${campaign.id}::int))
      WHERE id = ${deadId}`;
    const replay = await cliJson<unknown>('facts', 'replay-dead-letters', '--id', String(deadId));
    expect(replay).toEqual({ replayed: 1, batches: 1, by_table: { clicks: 1 } });
    const [marked] = await deps.sql<{ replayed_at: Date | null }[]>`
      SELECT replayed_at FROM fact_dead_letters WHERE id = ${deadId}`;
    expect(marked?.replayed_at).toBeInstanceOf(Date);
    await flushAllFacts(deps, ['clicks']);

    expect(await chCounts(deps, 'clicks', p.project.id)).toEqual({ rows: 6, unique: 6 });
    expect((await chCounts(deps, 'clicks_by_key', p.project.id)).rows).toBe(6);
    const again = await cli('facts', 'replay-dead-letters', '--id', String(deadId), '--json');
    expect(again.code).toBe(2);
    expect(again.err).toBe(`error: no pending dead letter with id ${deadId} (see: facts dead-letters)`);
  });

  it('when a dead letter of a fact ClickHouse already holds is replayed, then nothing is added', async () => {
    const { deps } = h();
    const { p, template } = await clicksWithTemplate();
    await flushAllFacts(deps, ['clicks']);
    const [dead] = await deps.sql<{ id: string }[]>`
      INSERT INTO fact_dead_letters (fact_table, fact_id, project_id, row, reason)
      VALUES ('clicks', ${String(template.click_id)}, ${p.project.id}, ${deps.sql.json(template as never)}, 'test')
      RETURNING id::text`;

    expect(
      await cliJson<unknown>('facts', 'replay-dead-letters', '--table', 'clicks', '--id', String(dead?.id)),
    ).toEqual({
      replayed: 1,
      batches: 1,
      by_table: { clicks: 1 },
    });
    await flushAllFacts(deps, ['clicks']);

    expect(await chCounts(deps, 'clicks', p.project.id)).toEqual({ rows: 5, unique: 5 });
    expect((await chCounts(deps, 'clicks_by_ip', p.project.id)).rows).toBe(5);
    expect(await outboxRows(deps, p.project.id)).toEqual({});
  });

  it('when the CLI gets an unknown table or a bad id, then it exits 2 naming the flag', async () => {
    const table = await cli('facts', 'dead-letters', '--table', 'nope');
    const id = await cli('facts', 'replay-dead-letters', '--id', 'x1');

    expect([table.code, table.err]).toEqual([
      2,
      `error: --table must be one of ${FACT_TABLES.join(', ')} (got 'nope')`,
    ]);
    expect([id.code, id.err]).toEqual([2, "error: --id must be a positive integer (got 'x1')"]);
  });
});

// ---------------------------------------------------------------------------------------------
// Crash test: the writer runs in child processes with their own ClickHouse (chdb: one engine per
// process) and a database of their own.

const CHILD = ['--import', 'tsx', 'test/support/fact-writer-child.ts'];
const CLICKS = 25_000;
const BASE_MS = Date.now() - 24 * 3600_000;

async function ownDatabase(): Promise<string> {
  const base = inject('databaseUrl');
  const name = `attribution_test_crash_${process.pid}_${randomUUID().slice(0, 8)}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE "${name}"`);
  await admin.end();
  cleanups.push(async () => {
    const a = postgres(base, { max: 1, onnotice: () => {} });
    await a.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await a.end();
  });
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A complete clicks row (every column of clickhouse/migrations/0001_create_clicks.sql). */
function clickRow(projectId: string, i: number): Record<string, unknown> {
  // Recent: the view targets expire old clicks (TTL 30 / 120 days).
  const ms = BASE_MS + i * 10;
  const blank = ['os_version', 'device_model', 'ad_set_id', 'ad_set_name', 'creative_id', 'creative_name'];
  const more = ['keyword_id', 'keyword_name', 'gclid', 'gbraid', 'wbraid', 'fbclid', 'ttclid', 'utm_source'];
  const rest = ['utm_medium', 'utm_campaign', 'utm_term', 'utm_content', 'ad_id', 'referrer'];
  return {
    click_id: `ck_${i}`,
    project_id: projectId,
    campaign_id: 1,
    display_id: 'crash',
    ts: formatChTime(ms),
    project_tz: 'UTC',
    day: localDay(ms, 'UTC'),
    ip: `10.0.${i % 250}.${i % 200}`,
    user_agent: 'test',
    platform: 'ANDROID',
    os: 'Android',
    device_vendor: '',
    browser: '',
    in_app_browser: '',
    network: '',
    ...Object.fromEntries([...blank, ...more, ...rest].map((k) => [k, ''])),
  };
}

describe('writer killed mid-batch', () => {
  it('when a writer is SIGKILLed after its insert landed and before its outbox delete, then a second writer finishes with zero lost and zero duplicates', async () => {
    const databaseUrl = await ownDatabase();
    const migrate = postgres(databaseUrl, { max: 1, onnotice: () => {} });
    await migratePostgres(migrate, PG_MIGRATIONS);
    const projectId = randomUUID();
    for (let i = 0; i < CLICKS; i += 2000) {
      const rows: OutboxRow[] = [];
      for (let j = i; j < Math.min(CLICKS, i + 2000); j++) {
        rows.push({ table: 'clicks', factId: `ck_${j}`, projectId, row: clickRow(projectId, j) });
      }
      await insertOutboxRows(migrate, rows);
    }
    const dir = await mkdtemp(path.join(os.tmpdir(), 'attribution-crash-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const env = cleanEnv({
      DATABASE_URL: databaseUrl,
      DATA_DIR: dir,
      CH_PATH: path.join(dir, 'clickhouse'),
      PROJECT_ID: projectId,
    });

    const first = startNode(CHILD, { ...env, CHILD_MODE: 'flush', FAULT: 'land-then-hang' });
    await first.waitFor('LANDED clicks 10000', 90_000);
    first.proc.kill('SIGKILL');
    const killed = await first.waitExit(10_000);
    const [held] = await migrate<{ n: number; claimed: number }[]>`
        SELECT (SELECT count(*)::int FROM fact_outbox) AS n, (SELECT count(*)::int FROM fact_claims) AS claimed`;
    const second = startNode(CHILD, { ...env, CHILD_MODE: 'flush' });
    await second.waitFor('DONE', 90_000);
    await second.waitExit(30_000);
    const counter = startNode(CHILD, { ...env, CHILD_MODE: 'count' });
    await counter.waitExit(60_000);
    const [left] = await migrate<{ n: number }[]>`SELECT count(*)::int AS n FROM fact_outbox`;
    await migrate.end();

    expect(killed.signal).toBe('SIGKILL');
    expect(held).toEqual({ n: CLICKS, claimed: 10_000 });
    // The killed writer's batch had landed: the second writer skips it and inserts only the rest.
    expect(
      second
        .stdout()
        .split('\n')
        .filter((l) => l.startsWith('LANDED')),
    ).toEqual(['LANDED clicks 10000', 'LANDED clicks 5000']);
    expect(JSON.parse(counter.stdout())).toEqual({ clicks: CLICKS, unique: CLICKS, by_key: CLICKS, by_ip: CLICKS });
    expect(left?.n).toBe(0);
    process.stdout.write(
      `${JSON.stringify({ test: 'F5 writer SIGKILL mid-batch', sent: CLICKS, acked: CLICKS, stored: CLICKS, unique: CLICKS, lost: 0, dup: 0 })}\n`,
    );
  }, 240_000);
});
