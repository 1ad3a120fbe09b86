// Operator CLI flags (runCli in-process against the test Postgres, output captured, as the other
// test/cli files do). README "CLI": "2 for a usage or input error", with a message naming the flag;
// results on stdout and warnings on stderr. An empty value is refused as every other command
// refuses one (`--days ''`, `facts replay-dead-letters --id ''`), whole numbers are digits only, and
// another project's ids are not found.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.ts';
import { createCampaign } from '../../src/domain/campaigns/create-campaign.ts';
import { insertDeliveries } from '../../src/store/postgres/deliveries.ts';
import * as f from '../support/factories.ts';
import { newProject, testEnv, useHarness } from '../support/harness.ts';

const h = useHarness();
const dirs: string[] = [];
let env: Record<string, string | undefined>;
beforeAll(async () => {
  env = await testEnv();
  dirs.push(env.DATA_DIR as string);
});
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

type Run = { code: number; out: string; err: string };

async function cli(...argv: string[]): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, env, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('deliveries replay --id', () => {
  // `--id ''` (an unset shell variable: --id "$IDS") requeued nothing and exited 0 with "requeued 0
  // dead deliveries", so a script could not tell it did nothing.
  it("when --id is empty or only commas, then it exits 2 naming --id, as facts replay-dead-letters --id '' does", async () => {
    const p = await newProject(h().deps);
    await insertDeliveries(h().deps.sql, [
      { projectId: p.project.id, destination: 'meta', eventKey: 'Purchase:x', eventTime: new Date(), payload: {} },
    ]);
    await h().deps.sql`UPDATE deliveries SET status = 'dead' WHERE project_id = ${p.project.id}`;
    const facts = await cli('facts', 'replay-dead-letters', '--id', '');

    const runs = [];
    for (const value of ['', ',', ' , ']) {
      const r = await cli('deliveries', 'replay', '--project', p.project.id, '--id', value);
      runs.push({ value, code: r.code, namesFlag: r.err.includes('--id') });
    }

    expect(facts.code).toBe(2);
    expect(runs).toEqual([
      { value: '', code: 2, namesFlag: true },
      { value: ',', code: 2, namesFlag: true },
      { value: ' , ', code: 2, namesFlag: true },
    ]);
    const [row] = await h().deps.sql<{ status: string }[]>`
      SELECT status FROM deliveries WHERE project_id = ${p.project.id}`;
    expect(row?.status).toBe('dead');
  });
});

describe('connections map', () => {
  // The rule texts are shared with PUT /api/v1/connections/mappings, which names JSON fields.
  it('when --kind, --to or --name breaks a rule, then the error names the flag', async () => {
    const p = await newProject(h().deps);
    const map = (kind: string, name: string, to: string) =>
      cli('connections', 'map', '--project', p.project.id, '--kind', kind, '--name', name, '--to', to);

    const results = [
      await map('evnt', 'buy', 'AddToCart'),
      await map('event', 'buy', 'Purchase'),
      await map('payment', 'ONE_TIME', 'AddToCart'),
      await map('payment', 'NOT_A_TYPE', 'Purchase'),
      await map('event', ' ', 'AddToCart'),
    ];

    expect(results.map((r) => [r.code, r.out])).toEqual(results.map(() => [2, '']));
    expect(results.map((r) => r.err)).toEqual([
      "error: --kind must be 'event' or 'payment'",
      "error: --to: an event maps to 'AddToCart' or 'ViewContent'",
      "error: --to: a payment type maps to 'Purchase'",
      expect.stringMatching(/^error: --name: a payment type is one of /),
      'error: --name must be 1 to 256 characters',
    ]);
  });
});

describe('skan dry-run --sample', () => {
  it("when --sample is in exponent or hex form, blank or empty, then it exits 2 naming --sample; '50' is read", async () => {
    const p = await newProject(h().deps);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'cli-flags-'));
    dirs.push(dir);
    const file = path.join(dir, 'skan.json');
    await writeFile(file, JSON.stringify({ rules: [{ fine: 5, coarse: 'medium', conditions: [{ type: 'signup' }] }] }));
    const dryRun = (sample: string) =>
      cli('skan', 'dry-run', '--project', p.project.id, '--file', file, '--sample', sample);

    const bad = [];
    for (const value of ['1e2', '0x10', ' 5', '', '5.0']) {
      const r = await dryRun(value);
      bad.push({ value, code: r.code, names: r.err.includes('--sample') });
    }
    const ok = await dryRun('50');

    expect(bad).toEqual(['1e2', '0x10', ' 5', '', '5.0'].map((value) => ({ value, code: 2, names: true })));
    expect([ok.code, ok.out, ok.err]).toEqual([0, '(none)', '']);
  });
});

describe('warnings go to stderr', () => {
  it('when a campaign of a network no resolver reads is mapped, then the result is on stdout and the note a warning on stderr', async () => {
    const p = await newProject(h().deps);
    const c = await createCampaign(h().deps, p.project, { name: 'tiktok', adNetwork: 'TIKTOK' });
    const args = ['campaigns', 'set-network-id', '--project', p.project.id, '--display-id', c.displayId];

    const r = await cli(...args, '--network-campaign-id', '42');
    const json = await cli(...args, '--network-campaign-id', '43', '--json');

    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe(`campaign ${c.displayId} (TIKTOK) mapped to network campaign 42`);
    expect(r.err).toBe('warning: no resolver reads TIKTOK ids yet; only APPLE_SEARCH_ADS, META');
    expect(JSON.parse(json.out)).toEqual({ display_id: c.displayId, network: 'TIKTOK', network_campaign_id: '43' });
    expect(json.err).toBe(r.err);
  });
});

describe("another project's ids", () => {
  it("when set-network-id or spend sandbox name another project's campaign, then exit 2 not found and nothing changes", async () => {
    const a = await newProject(h().deps);
    const b = await newProject(h().deps);
    const c = await f.campaign(h().app, b, {});

    const map = await cli(
      ...['campaigns', 'set-network-id', '--project', a.project.id, '--display-id', c.display_id],
      ...['--network-campaign-id', '42', '--json'],
    );
    const sandbox = await cli('spend', 'sandbox', '--project', a.project.id, '--campaign', c.display_id, '--json');

    expect([map.code, map.out]).toEqual([2, '']);
    expect(map.err).toContain('not found');
    expect([sandbox.code, sandbox.out]).toEqual([2, '']);
    expect(sandbox.err).toContain('not found');
    const [row] = await h().deps.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM spend_rows WHERE project_id = ${a.project.id}`;
    expect(row?.n).toBe(0);
  });

  it('when a negative number is given as a separate word, then it exits 2 with one message, no stack trace', async () => {
    const p = await newProject(h().deps);

    const r = await cli('spend', 'sandbox', '--project', p.project.id, '--campaign', 'x', '--days', '-1');
    const eq = await cli('spend', 'sandbox', '--project', p.project.id, '--campaign', 'x', '--days=-1');

    expect([r.code, r.out]).toEqual([2, '']);
    expect(r.err).toMatch(/^error: .*--days/);
    expect(r.err).not.toMatch(/^\s+at /m);
    expect([eq.code, eq.out]).toEqual([2, '']);
  });
});
