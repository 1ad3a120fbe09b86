// CLI `audiences export` (README "CLI", "Audience exports"): the same segment and CSV as
// GET /api/v1/audiences/export, written to --out (renamed into place once whole), the counts on
// stdout (text or --json), progress on stderr past a page of users, exit 2 for bad flags; a
// ClickHouse failure between pages leaves no file and an older --out as it was. runCli
// runs in-process and opens ClickHouse as the command does, at DATA_DIR/clickhouse: this file's
// engine is opened at that same path (chdb lets connections to one path coexist in a process).
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { AUDIENCE_COMMANDS } from '../../src/cli/audience-commands.ts';
import { runCli } from '../../src/cli/main.ts';
import { loadConfig } from '../../src/config.ts';
import { closeDeps, createDeps, type Deps } from '../../src/deps.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { type ClickHouseClient, createEmbeddedClickHouse } from '../../src/store/clickhouse/client.ts';
import { bulkProject, eventAt, failingAfter, landFacts, seedUser } from '../support/audiences.ts';
import { type Harness, newProject, type TestProject, testEnv } from '../support/harness.ts';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const GAID = '38400000-8cf0-11bd-b23e-10b96e40000d';

let env: Record<string, string | undefined>;
let ch: ClickHouseClient;
let harness: Harness | undefined;
let dir: string;
const h = (): Harness => {
  if (!harness) {
    throw new Error('harness not ready');
  }
  return harness;
};

beforeAll(async () => {
  env = await testEnv({ RATE_LIMITS_ENABLED: 'false' });
  dir = await mkdtemp(path.join(os.tmpdir(), 'audiences-cli-'));
  ch = await createEmbeddedClickHouse(path.join(String(env.DATA_DIR), 'clickhouse'));
  const deps = await createDeps(loadConfig(env), createLogger('silent'), { migrate: true, clickhouse: ch });
  const app = await buildApp(deps);
  await app.ready();
  harness = { app, deps };
});
afterAll(async () => {
  if (harness) {
    await harness.app.close();
    await closeDeps(harness.deps);
  }
  await ch?.close();
  await rm(dir, { recursive: true, force: true });
  await rm(String(env.DATA_DIR), { recursive: true, force: true });
});

type Run = { code: number; out: string; err: string; bar: string };
async function cli(...argv: string[]): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const bar: string[] = [];
  const io = { out: (s: string) => out.push(s), err: (s: string) => err.push(s), bar: (s: string) => bar.push(s) };
  const code = await runCli(argv, env, io);
  return { code, out: out.join('\n'), err: err.join('\n'), bar: bar.join('') };
}

const WINDOW = ['--event', 'purchase', '--from', '2025-04-01', '--to', '2025-04-30'];

/** Two users with identifiers and one without, who did `purchase` on 2025-04-10. */
async function segmentProject(): Promise<TestProject> {
  const p = await newProject(h().deps, { timezone: 'Asia/Kolkata' });
  await seedUser(h(), p, { userId: 'u-1', email: 'One@Example.com', phone: '+1 650 555 1234', gaid: GAID });
  await seedUser(h(), p, { userId: 'u-2', email: 'two@example.com' });
  await seedUser(h(), p, { userId: 'u-3' });
  for (const u of ['u-1', 'u-2', 'u-3']) {
    await eventAt(h(), p, u, 'purchase', '2025-04-10T10:00:00Z');
  }
  await landFacts(h());
  return p;
}

describe('audiences export', () => {
  it('when a segment is exported, then --out holds the meta CSV and stdout the counts', async () => {
    const p = await segmentProject();
    const out = path.join(dir, 'meta.csv');

    const r = await cli('audiences', 'export', '--project', p.project.id, ...WINDOW, '--format', 'meta', '--out', out);

    expect(r.code).toBe(0);
    expect(await readFile(out, 'utf8')).toBe(
      `email,phone,madid\n${sha('one@example.com')},${sha('16505551234')},${GAID}\n${sha('two@example.com')},,\n`,
    );
    expect(r.out).toBe(`2 rows written to ${out} (meta); 1 users skipped: no identifier for the format`);
    expect(r.bar).toBe('');
    // The engine this file holds still answers after the command closed its own connection.
    expect((await (await ch.query({ query: 'SELECT 1 AS x', format: 'JSONEachRow' })).json())[0]).toEqual({ x: 1 });
  });

  it('when --json is given, then stdout is one JSON value with the file and counts', async () => {
    const p = await segmentProject();
    const out = path.join(dir, 'google.csv');

    const r = await cli(
      'audiences',
      'export',
      '--project',
      p.project.id,
      ...WINDOW,
      '--format',
      'google',
      '--out',
      out,
      '--json',
    );

    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ project_id: p.project.id, file: out, format: 'google', rows: 2, skipped: 1 });
    expect(await readFile(out, 'utf8')).toBe(
      `Email,Phone\n${sha('one@example.com')},${sha('+16505551234')}\n${sha('two@example.com')},\n`,
    );
  });

  it('when the segment passes a page of users, then every user is written and progress goes to stderr', async () => {
    const n = 5001;
    const p = await bulkProject(h().deps, n);
    const out = path.join(dir, 'bulk.csv');

    const r = await cli('audiences', 'export', '--project', p.project.id, ...WINDOW, '--format', 'plain', '--out', out);

    expect(r.code).toBe(0);
    const lines = (await readFile(out, 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(n + 1);
    expect(lines[1]).toBe(`bulk-00001,${sha('bulk-1@example.com')},,`);
    expect(lines[n]).toBe(`bulk-05001,${sha('bulk-5001@example.com')},,`);
    expect(r.bar).toContain('\r5,000 users read, 5,000 rows written, 0 skipped');
    expect(r.bar).toContain('\r5,001 users read, 5,001 rows written, 0 skipped');
    expect(r.out).toBe(`5,001 rows written to ${out} (plain); 0 users skipped: no identifier for the format`);
  });

  it('when ClickHouse fails after the first page, then the command fails, no .partial is left and an existing --out is untouched', async () => {
    const p = await bulkProject(h().deps, 5001);
    const sub = await mkdtemp(path.join(dir, 'cut-'));
    const out = path.join(sub, 'buyers.csv');
    await writeFile(out, 'yesterday\n');
    const cmd = AUDIENCE_COMMANDS.find((c) => c.path.join(' ') === 'audiences export');
    const deps: Deps = { ...h().deps, ch: failingAfter(h().deps.ch, 1) };
    const flags = {
      project: p.project.id,
      event: 'purchase',
      from: '2025-04-01',
      to: '2025-04-30',
      format: 'plain',
      out,
    };

    const failure = await cmd
      ?.run(deps, flags, () => {})
      .then(
        () => 'no failure',
        (err: Error) => err.message,
      );

    expect(failure).toBe('connect ECONNREFUSED');
    expect(await readdir(sub)).toEqual(['buyers.csv']);
    expect(await readFile(out, 'utf8')).toBe('yesterday\n');
  });

  it.each([
    [
      ['--payment-type', 'gift', '--event', ''],
      "Invalid payment_type 'gift'. Use any or a payment type (FIRST_PAYMENT, ONE_TIME, DEFAULT, …).",
    ],
    [['--format', 'csv'], "Invalid format 'csv'. Use meta, google, google_device_ids or plain."],
    [['--campaign', 'no-such-campaign'], 'Campaign not found!'],
    [['--inactive-by', 'action'], 'inactive_by needs inactive_days.'],
  ])('when the flags hold %j, then exit 2 with the text and no file is left', async (extra, text) => {
    const p = await newProject(h().deps);
    const out = path.join(dir, `bad-${Date.now()}.csv`);
    const flags = ['--project', p.project.id, ...WINDOW, '--format', 'meta', '--out', out, ...extra];

    const r = await cli('audiences', 'export', ...flags);

    expect(r.code).toBe(2);
    expect(r.err).toBe(`error: ${text}`);
    expect((await readdir(dir)).filter((f) => f.startsWith(path.basename(out)))).toEqual([]);
  });

  it('when the project does not exist, then exit 2 naming it', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    const r = await cli(
      'audiences',
      'export',
      '--project',
      id,
      ...WINDOW,
      '--format',
      'meta',
      '--out',
      path.join(dir, 'x.csv'),
    );

    expect(r.code).toBe(2);
    expect(r.err).toBe(`error: project '${id}' not found (see: projects list)`);
  });
});
