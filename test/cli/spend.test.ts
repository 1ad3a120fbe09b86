// CLI `spend import` (CSV with a header row; bad lines reported with their line numbers and skipped;
// a progress bar on stderr for big files) and `spend sandbox` (deterministic sandbox_ads spend),
// both through the same upsert as PUT /api/v1/spend. runCli runs in-process against the test Postgres.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.ts';
import { importSpendCsv } from '../../src/domain/spend/import-spend-csv.ts';
import * as f from '../support/factories.ts';
import { newProject, type TestProject, testEnv, useHarness } from '../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });
let env: Record<string, string | undefined>;
let dir: string;

beforeAll(async () => {
  env = await testEnv();
  dir = await mkdtemp(path.join(os.tmpdir(), 'spend-cli-'));
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

async function setup(displayId?: string): Promise<{ p: TestProject; displayId: string }> {
  const p = await newProject(h().deps);
  const c = await f.campaign(h().app, p, displayId ? { custom_display_id: displayId } : {});
  return { p, displayId: c.display_id };
}

type Stored = {
  day: string;
  ad_set_id: string;
  creative_id: string;
  amount: string;
  impressions: string;
  clicks: string;
  source: string;
};
function stored(p: TestProject): Promise<Stored[]> {
  return h().deps.sql<Stored[]>`
    SELECT day::text AS day, ad_set_id, creative_id, amount::text AS amount, impressions::text AS impressions,
      clicks::text AS clicks, source
    FROM spend_rows WHERE project_id = ${p.project.id} ORDER BY day, ad_set_id, creative_id`;
}

describe('spend import', () => {
  it('when the CSV has good and bad lines, then the good ones are stored and each bad one is reported with its line', async () => {
    const { p, displayId } = await setup();
    const file = await csv(
      [
        'Day,campaign_display_id,ad_set_id,ad_set_name,amount,impressions,clicks',
        `2025-04-01,${displayId},as1,"Set, one",10.25,1000,20`,
        `2025-04-31,${displayId},as1,x,1,,`,
        '',
        `2025-04-02,${displayId},as1,"multi`,
        `line",2,,`,
        `2025-04-03,${displayId},as1`,
        `2025-04-03,missing,as1,x,1,,`,
        `2025-04-03,${displayId},as2,,-5,,`,
      ].join('\r\n'),
    );

    const r = await cli('spend', 'import', '--project', p.project.id, '--file', file, '--json');

    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toEqual({
      project_id: p.project.id,
      file,
      rows: 6,
      accepted: 2,
      unchanged: 0,
      rejected: [
        { line: 3, reason: 'day must be a date YYYY-MM-DD' },
        { line: 7, reason: '3 fields where the header has 7' },
        { line: 8, reason: "campaign 'missing' not found in this project" },
        { line: 9, reason: 'amount must be a number or decimal string from 0 to 1e20 with at most 9 decimals' },
      ],
    });
    expect(await stored(p)).toEqual([
      {
        day: '2025-04-01',
        ad_set_id: 'as1',
        creative_id: '',
        amount: '10.250000000',
        impressions: '1000',
        clicks: '20',
        source: 'csv',
      },
      {
        day: '2025-04-02',
        ad_set_id: 'as1',
        creative_id: '',
        amount: '2.000000000',
        impressions: '0',
        clicks: '0',
        source: 'csv',
      },
    ]);
    const [name] = await h().deps.sql<{ ad_set_name: string }[]>`
      SELECT ad_set_name FROM spend_rows WHERE project_id = ${p.project.id} AND day = '2025-04-02'`;
    expect(name?.ad_set_name).toBe('multi\r\nline');
  });

  it('when run without --json, then it prints a summary and the bad lines; a repeated import is unchanged', async () => {
    const { p, displayId } = await setup();
    const file = await csv(`day,campaign_display_id,amount\n2025-04-05,${displayId},3\n2025-04-05,${displayId},4\n`);

    const first = await cli('spend', 'import', '--project', p.project.id, '--file', file);
    const again = await cli('spend', 'import', '--project', p.project.id, '--file', file);

    expect(first.out).toBe(
      '2 rows: 1 accepted, 0 unchanged, 1 rejected\n  line 2: superseded by line 3 (same day, campaign, ad set, creative, keyword and network)',
    );
    expect(again.out.split('\n')[0]).toBe('2 rows: 0 accepted, 1 unchanged, 1 rejected');
    expect((await stored(p)).map((r) => r.amount)).toEqual(['4.000000000']);
  });

  it('when the file is big, then a progress bar is drawn on stderr and every row is stored', async () => {
    const { p, displayId } = await setup();
    const lines = Array.from({ length: 2500 }, (_, i) => `2025-01-01,${displayId},as${i},${i}`);
    const file = await csv(`day,campaign_display_id,ad_set_id,amount\n${lines.join('\n')}\n`);

    const r = await cli('spend', 'import', '--project', p.project.id, '--file', file);

    expect(r.code, r.err).toBe(0);
    expect(r.err.split('\n')).toEqual([
      '\r[####      ] 40% 1,000/2,500 rows',
      '\r[########  ] 80% 2,000/2,500 rows',
      '\r[##########] 100% 2,500/2,500 rows',
    ]);
    expect(r.out).toBe('2,500 rows: 2,500 accepted, 0 unchanged, 0 rejected');
    expect(await stored(p)).toHaveLength(2500);
  });

  it.each([
    [
      'a required column is missing',
      'day,amount\n2025-01-01,1\n',
      'error: the CSV header must name campaign_display_id',
    ],
    ['a column is unknown', 'day,campaign_display_id,amount,cost\n', 'error: unknown CSV column(s): cost'],
    [
      'a quote is not closed',
      'day,campaign_display_id,amount\n2025-01-01,"x,1\n',
      'error: line 2: a quoted field is not closed',
    ],
    ['the file is empty', '', 'is empty (expected a header row)'],
  ])('when %s, then it exits 2 naming the problem', async (_case, text, message) => {
    const { p } = await setup();
    const file = await csv(text);

    const r = await cli('spend', 'import', '--project', p.project.id, '--file', file);

    expect(r.code).toBe(2);
    expect(r.err).toContain(message);
  });

  it('when a key appears again more than a batch (1,000 lines) later, then the earlier line is reported as superseded', async () => {
    // upsertSpend sees one batch: the two lines were both counted as accepted, the earlier one silently replaced.
    const { p, displayId } = await setup();
    const filler = Array.from({ length: 1000 }, (_, i) => `2025-05-01,${displayId},as${i},1`);
    const file = await csv(
      [
        'day,campaign_display_id,ad_set_id,amount',
        `2025-05-02,${displayId},dup,5`,
        ...filler,
        `2025-05-02,${displayId},dup,7`,
        `2025-05-02,${displayId},dup,-1`,
      ].join('\n'),
    );

    const r = await cli('spend', 'import', '--project', p.project.id, '--file', file, '--json');

    expect(r.code, r.err).toBe(0);
    // The invalid last line supersedes nothing: line 1003 wins.
    expect(JSON.parse(r.out)).toMatchObject({
      rows: 1003,
      accepted: 1001,
      rejected: [
        { line: 2, reason: 'superseded by line 1003 (same day, campaign, ad set, creative, keyword and network)' },
        { line: 1004, reason: 'amount must be a number or decimal string from 0 to 1e20 with at most 9 decimals' },
      ],
    });
    expect((await stored(p)).filter((s) => s.ad_set_id === 'dup').map((s) => s.amount)).toEqual(['7.000000000']);
  });

  it('when cells follow ", " separators, then the day is trimmed like every other cell', async () => {
    const { p, displayId } = await setup();
    const file = await csv(`campaign_display_id, day, amount\n${displayId}, 2025-05-05, 12.50\n`);

    const r = await cli('spend', 'import', '--project', p.project.id, '--file', file, '--json');

    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ rows: 1, accepted: 1, rejected: [] });
    expect((await stored(p)).map((s) => [s.day, s.amount])).toEqual([['2025-05-05', '12.500000000']]);
  });

  it('when a batch fails mid-file, then the error names its lines and what is already stored', async () => {
    const { p, displayId } = await setup();
    const lines = Array.from({ length: 2500 }, (_, i) => `2025-05-01,${displayId},as${i},1`);
    const file = await csv(['day,campaign_display_id,ad_set_id,amount', ...lines].join('\n'));
    const { sql } = h().deps;
    let batches = 0;
    // The second batch's transaction fails as a dropped connection would.
    const failing = new Proxy(sql, {
      get: (target, prop, receiver) =>
        prop === 'begin'
          ? (...args: unknown[]) =>
              ++batches === 2
                ? Promise.reject(new Error('connection lost'))
                : (target.begin as (...a: unknown[]) => unknown)(...args)
          : Reflect.get(target, prop, receiver),
    });

    const err = await importSpendCsv({ sql: failing, now: Date.now }, p.project.id, file).catch((e: Error) => e);

    expect((err as Error).message).toBe(
      'the batch of lines 1002–2001 failed: connection lost. The 1,000 valid lines before it are stored; ' +
        'importing the same file again is safe (they come back unchanged).',
    );
    expect(await stored(p)).toHaveLength(1000);
  });

  it('when the project does not exist, then it exits 2', async () => {
    const file = await csv('day,campaign_display_id,amount\n');

    const r = await cli('spend', 'import', '--project', '00000000-0000-4000-8000-000000000000', '--file', file);

    expect(r.code).toBe(2);
    expect(r.err).toBe("error: project '00000000-0000-4000-8000-000000000000' not found (see: projects list)");
  });
});

describe('spend sandbox', () => {
  it('when run twice with the same seed, then the numbers are the same and the second run writes nothing', async () => {
    const shared = `sbx-${process.pid}-${Date.now().toString(36)}`;
    const a = await setup(shared);
    // A display id belongs to one project now; an older database may hold one in two (set up so).
    const b = await setup();
    await h().deps.sql`UPDATE campaigns SET display_id = ${shared}
      WHERE project_id = ${b.p.project.id} AND display_id = ${b.displayId}`;

    const first = await cli(
      'spend',
      'sandbox',
      '--project',
      a.p.project.id,
      '--campaign',
      shared,
      '--days',
      '3',
      '--seed',
      '9',
      '--json',
    );
    const again = await cli(
      'spend',
      'sandbox',
      '--project',
      a.p.project.id,
      '--campaign',
      shared,
      '--days',
      '3',
      '--seed',
      '9',
      '--json',
    );
    await cli('spend', 'sandbox', '--project', b.p.project.id, '--campaign', shared, '--days', '3', '--seed', '9');

    expect(first.code, first.err).toBe(0);
    const out = JSON.parse(first.out);
    expect(out).toMatchObject({
      project_id: a.p.project.id,
      campaign_display_id: shared,
      network: 'SANDBOX_ADS',
      seed: 9,
      rows: 12,
      accepted: 12,
      unchanged: 0,
      rejected: [],
    });
    expect(out.to).toMatch(/^\d{4}-\d\d-\d\d$/);
    expect(JSON.parse(again.out)).toMatchObject({ rows: 12, accepted: 0, unchanged: 12 });
    const rowsA = await stored(a.p);
    expect(rowsA).toHaveLength(12);
    expect(await stored(b.p)).toEqual(rowsA);
    expect(new Set(rowsA.map((r) => r.source))).toEqual(new Set(['sandbox_ads']));
    for (const r of rowsA) {
      expect(Number(r.amount)).toBeGreaterThan(0);
      expect(Number(r.impressions)).toBeGreaterThan(Number(r.clicks));
      expect(Number(r.clicks)).toBeGreaterThan(0);
    }
  });

  it('when the seed changes, then the same days get other amounts (a restatement)', async () => {
    const { p, displayId } = await setup();
    await cli('spend', 'sandbox', '--project', p.project.id, '--campaign', displayId, '--days', '2');
    const before = await stored(p);

    const r = await cli(
      'spend',
      'sandbox',
      '--project',
      p.project.id,
      '--campaign',
      displayId,
      '--days',
      '2',
      '--seed',
      '2',
    );

    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(
      /^sandbox_ads spend for \S+, \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d \(seed 2\): 8 rows, 8 accepted, 0 unchanged$/,
    );
    const after = await stored(p);
    expect(after.map((x) => [x.day, x.ad_set_id, x.creative_id])).toEqual(
      before.map((x) => [x.day, x.ad_set_id, x.creative_id]),
    );
    expect(after.map((x) => x.amount)).not.toEqual(before.map((x) => x.amount));
  });

  it.each([
    [['--days', '0'], "error: --days must be a whole number from 1 to 366 (got '0')"],
    [['--seed', 'x'], "error: --seed must be a whole number from 0 to 4294967295 (got 'x')"],
    [['--campaign', 'nope'], "error: campaign 'nope' not found in project"],
  ])('when given %j, then it exits 2 naming the flag', async (extra, message) => {
    const { p, displayId } = await setup();
    const flags = extra[0] === '--campaign' ? extra : ['--campaign', displayId, ...extra];

    const r = await cli('spend', 'sandbox', '--project', p.project.id, ...flags);

    expect(r.code).toBe(2);
    expect(r.err).toContain(message);
  });
});
