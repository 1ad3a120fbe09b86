// Ctrl-C during a long command, run as a process (service mode: the test Postgres).
// README "CLI": "Ctrl-C on a command closes its connections ... then exits 130"; spend import
// "streamed twice ... in batches of 1,000" and (import-spend-csv.ts) "Each batch commits on its own
// ... importing the same file again is safe". So an interrupted import leaves whole batches and a
// second run completes it, each key once.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../support/embedded-service.ts';
import * as f from '../support/factories.ts';
import { newProject, processDatabaseUrl, useHarness } from '../support/harness.ts';
import { cleanEnv, killStartedChildren, startNode } from '../support/processes.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });
const dirs: string[] = [];
afterAll(async () => {
  await killStartedChildren();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

const LINES = 30_000;

describe('spend import interrupted', () => {
  it('when SIGINT arrives mid-import, then it exits 130 with nothing on stdout, whole batches are stored, and a re-run completes every key once', async () => {
    const p = await newProject(h().deps);
    const c = await f.campaign(h().app, p, {});
    const dir = await mkdtemp(path.join(os.tmpdir(), 'cli-sig-'));
    dirs.push(dir);
    const file = path.join(dir, 'spend.csv');
    const rows = Array.from({ length: LINES }, (_, i) => `2026-01-0${1 + (i % 9)},${c.display_id},as-${i},1.25`);
    await writeFile(file, `day,campaign_display_id,ad_set_id,amount\n${rows.join('\n')}\n`);
    const env = cleanEnv({ DATABASE_URL: await processDatabaseUrl(), DATA_DIR: dir, LOG_LEVEL: 'silent' });
    const args = ['--import', 'tsx', 'src/cli/main.ts', 'spend', 'import', '--project', p.project.id, '--file', file];

    const child = startNode(args, env);
    await waitUntil(() => /\d+% [\d,]+\/[\d,]+ rows/.test(child.stderr()), 60_000, 'a progress bar');
    child.proc.kill('SIGINT');
    const exit = await child.waitExit(30_000);
    const [{ n: afterStop } = { n: -1 }] = await h().deps.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM spend_rows WHERE project_id = ${p.project.id}`;

    expect(exit.code, child.stderr()).toBe(130);
    expect(child.stdout()).toBe('');
    expect(child.stderr()).toContain('SIGINT: stopping');
    expect(child.stderr()).not.toMatch(/^\s+at /m);
    expect(afterStop % 1000).toBe(0);
    expect(afterStop).toBeLessThan(LINES);

    const again = startNode([...args, '--json'], env);
    const exit2 = await again.waitExit(90_000);
    expect(exit2.code, again.stderr()).toBe(0);
    const r = JSON.parse(again.stdout()) as { rows: number; accepted: number; unchanged: number; rejected: unknown[] };
    expect(r).toMatchObject({ rows: LINES, rejected: [] });
    expect(r.accepted + r.unchanged).toBe(LINES);
    expect(r.unchanged).toBe(afterStop);
    const [{ n, sum } = { n: -1, sum: '' }] = await h().deps.sql<{ n: number; sum: string }[]>`
      SELECT count(*)::int AS n, sum(amount)::text AS sum FROM spend_rows WHERE project_id = ${p.project.id}`;
    expect([n, Number(sum)]).toEqual([LINES, LINES * 1.25]);
  }, 150_000);
});
