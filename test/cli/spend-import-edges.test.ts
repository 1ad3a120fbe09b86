// CLI `spend import` at its edges: a key is the day, campaign, ad set, creative, keyword and the
// network upsertSpend keys on (the cell, else the campaign's), so of the lines of one key the last
// valid one wins and the earlier ones are reported as superseded, however far apart; exit codes
// (0 success, 2 input error); two imports of one file at once land exactly once in Postgres and
// ClickHouse; --json keeps stdout one JSON value.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.ts';
import { flushAllFacts } from '../../src/domain/facts/flush-facts.ts';
import { FACT_TABLES } from '../../src/domain/facts/tables.ts';
import { importSpendCsv } from '../../src/domain/spend/import-spend-csv.ts';
import * as f from '../support/factories.ts';
import { newProject, type TestProject, testEnv, useHarness } from '../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });
let env: Record<string, string | undefined>;
let dir: string;

beforeAll(async () => {
  env = await testEnv();
  dir = await mkdtemp(path.join(os.tmpdir(), 'spend-import-edges-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(String(env.DATA_DIR), { recursive: true, force: true });
});

type Run = { code: number; out: string; err: string };
async function cli(...argv: string[]): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, env, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

let files = 0;
async function csv(text: string): Promise<string> {
  const file = path.join(dir, `spend-${++files}.csv`);
  await writeFile(file, text);
  return file;
}

async function setup(campaign: Record<string, unknown> = {}): Promise<{ p: TestProject; displayId: string }> {
  const p = await newProject(h().deps);
  const c = await f.campaign(h().app, p, campaign);
  return { p, displayId: c.display_id };
}

async function ch<T>(query: string, p: TestProject): Promise<T[]> {
  const rs = await h().deps.ch.query({ query, format: 'JSONEachRow', query_params: { p: p.project.id } });
  return rs.json<T>();
}

describe('spend import: edges', () => {
  it('when a key comes back in a later batch with the network spelled out (the campaign default), then the earlier line is superseded', async () => {
    // Line 2 leaves network to the campaign's (META) and line 1005 names it; line 3 names it and line
    // 1006 leaves it out: one key each (upsertSpend keys on the cell, else the campaign's network), so
    // lines 2 and 3 are superseded and not counted. GOOGLE (line 4) is another key than META.
    const { p, displayId } = await setup({ ad_network: 'META' });
    const filler = Array.from({ length: 1000 }, (_, i) => `2025-06-01,${displayId},as${i},,1`);
    const file = await csv(
      [
        'day,campaign_display_id,ad_set_id,network,amount',
        `2025-06-02,${displayId},dup,,5`,
        `2025-06-02,${displayId},dup2,meta,6`,
        `2025-06-02,${displayId},dup,GOOGLE,2`,
        ...filler,
        `2025-06-02,${displayId},dup,META,7`,
        `2025-06-02,${displayId},dup2,,8`,
      ].join('\n'),
    );

    const r = await cli('spend', 'import', '--project', p.project.id, '--file', file, '--json');

    expect(r.code, r.err).toBe(0);
    const rows = await h().deps.sql<{ ad_set_id: string; network: string; amount: string }[]>`
      SELECT ad_set_id, network, amount::text AS amount FROM spend_rows
      WHERE project_id = ${p.project.id} AND ad_set_id IN ('dup', 'dup2') ORDER BY ad_set_id, network`;
    expect(rows).toEqual([
      { ad_set_id: 'dup', network: 'GOOGLE', amount: '2.000000000' },
      { ad_set_id: 'dup', network: 'META', amount: '7.000000000' },
      { ad_set_id: 'dup2', network: 'META', amount: '8.000000000' },
    ]);
    const superseded = (line: number, later: number) => ({
      line,
      reason: `superseded by line ${later} (same day, campaign, ad set, creative, keyword and network)`,
    });
    expect(JSON.parse(r.out)).toMatchObject({
      rows: 1005,
      accepted: 1003,
      unchanged: 0,
      rejected: [superseded(2, 1005), superseded(3, 1006)],
    });
  });

  it('when the same 2,500-line file is imported twice at once, then each key is stored and counted once', async () => {
    const { p, displayId } = await setup();
    const lines = Array.from({ length: 2500 }, (_, i) => `2025-06-03,${displayId},as${i},0.01`);
    const file = await csv(['day,campaign_display_id,ad_set_id,amount', ...lines].join('\n'));
    const deps = { sql: h().deps.sql, now: Date.now };

    const [a, b] = await Promise.all([
      importSpendCsv(deps, p.project.id, file),
      importSpendCsv(deps, p.project.id, file),
    ]);

    expect(a.accepted + b.accepted).toBe(2500);
    expect(a.unchanged + b.unchanged).toBe(2500);
    const [pg] = await h().deps.sql<{ n: string; total: string }[]>`
      SELECT count(*)::text AS n, sum(amount)::text AS total FROM spend_rows WHERE project_id = ${p.project.id}`;
    expect(pg).toEqual({ n: '2500', total: '25.000000000' });
    await flushAllFacts(h().deps, FACT_TABLES);
    expect(
      await ch(
        `SELECT toString(count()) AS n, toString(sum(amount * sign)) AS v FROM spend WHERE project_id = {p:String}`,
        p,
      ),
    ).toEqual([{ n: '2500', v: '25' }]);
    expect(
      await ch(`SELECT toString(sum(spend)) AS v FROM campaign_platform_daily WHERE project_id = {p:String}`, p),
    ).toEqual([{ v: '25' }]);
  });

  it('when the file has only a header, then it exits 0 with 0 rows', async () => {
    const { p } = await setup();
    const file = await csv('day,campaign_display_id,amount\r\n');

    const r = await cli('spend', 'import', '--project', p.project.id, '--file', file);

    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe('0 rows: 0 accepted, 0 unchanged, 0 rejected');
  });

  it.each([
    [
      'a directory',
      async () => {
        const d = path.join(dir, `sub-${++files}`);
        await mkdir(d);
        return d;
      },
    ],
    ['a missing file', async () => path.join(dir, 'nope.csv')],
    ['a semicolon-separated export', () => csv('day;campaign_display_id;amount\n2025-01-01;x;1\n')],
    ['a currency column', () => csv('day,campaign_display_id,amount,currency\n2025-01-01,x,1,EUR\n')],
  ])('when --file is %s, then it exits 2 with an error line and stores nothing', async (_case, make) => {
    const { p } = await setup();
    const file = await make();

    const r = await cli('spend', 'import', '--project', p.project.id, '--file', file);

    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^error: /);
    expect(r.err).not.toContain('\n    at ');
    const [n] = await h().deps.sql<{ n: string }[]>`
      SELECT count(*)::text AS n FROM spend_rows WHERE project_id = ${p.project.id}`;
    expect(n?.n).toBe('0');
  });

  it('when --json is given for a big file, then stdout is one JSON value and no progress bar is drawn', async () => {
    const { p, displayId } = await setup();
    const lines = Array.from({ length: 1500 }, (_, i) => `2025-06-04,${displayId},as${i},2`);
    const file = await csv(['day,campaign_display_id,ad_set_id,amount', ...lines].join('\n'));

    const r = await cli('spend', 'import', '--project', p.project.id, '--file', file, '--json');

    expect(r.code, r.err).toBe(0);
    expect(r.err).toBe('');
    expect(JSON.parse(r.out)).toMatchObject({ rows: 1500, accepted: 1500, unchanged: 0, rejected: [] });
  });
});
