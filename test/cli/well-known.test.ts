// CLI `projects set-well-known`: reads the AASA (a JSON object) and assetlinks.json (a JSON array
// of objects) from files, refuses anything else with exit 2 and a message naming the flag, and
// the stored files are what the project's link domains then serve.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.ts';
import * as f from '../support/factories.ts';
import { newProject, testEnv, useHarness } from '../support/harness.ts';

const h = useHarness();
let env: Record<string, string | undefined>;
let dir: string;

beforeAll(async () => {
  env = await testEnv();
  dir = await mkdtemp(path.join(os.tmpdir(), 'well-known-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(env.DATA_DIR as string, { recursive: true, force: true });
});

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, env, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

let n = 0;
async function file(content: string): Promise<string> {
  n += 1;
  const p = path.join(dir, `f${n}.json`);
  await writeFile(p, content);
  return p;
}

const AASA = { applinks: { details: [{ appIDs: ['TEAM.com.example'], components: [{ '/': '/*' }] }] } };
const LINKS = [{ relation: ['delegate_permission/common.handle_all_urls'], target: { namespace: 'android_app' } }];

describe('projects set-well-known', () => {
  it('when both files are valid, then they are stored, printed, and served on the project domain', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const d = await f.domain(deps, p);
    const r = await cli(
      'projects',
      'set-well-known',
      '--project',
      p.project.id,
      '--aasa-file',
      await file(JSON.stringify(AASA)),
      '--assetlinks-file',
      await file(JSON.stringify(LINKS)),
      '--json',
    );
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toEqual({
      project_id: p.project.id,
      apple_app_site_association: AASA,
      assetlinks: LINKS,
    });
    const served = await app.inject({ method: 'GET', url: '/.well-known/assetlinks.json', headers: { host: d.name } });
    expect(served.json()).toEqual(LINKS);
  });

  it('when only one file is given, then the other stored file is kept', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const aasa = await file(JSON.stringify(AASA));
    expect((await cli('projects', 'set-well-known', '--project', p.project.id, '--aasa-file', aasa)).code).toBe(0);
    const links = await file(JSON.stringify(LINKS));
    const r = await cli('projects', 'set-well-known', '--project', p.project.id, '--assetlinks-file', links);
    expect(r.code).toBe(0);
    expect(r.out).toBe('well-known files: apple-app-site-association set, assetlinks.json set');
  });

  it.each([
    ['--aasa-file', '[1, 2]', 'must hold a JSON object'],
    ['--aasa-file', '{not json', 'is not valid JSON'],
    ['--assetlinks-file', '{"a": 1}', 'must hold a JSON array of objects'],
    ['--assetlinks-file', '["x"]', 'must hold a JSON array of objects'],
  ])('when %s holds %s, then exit 2 naming the flag, nothing stored', async (flag, content, message) => {
    const { deps } = h();
    const p = await newProject(deps);
    const r = await cli('projects', 'set-well-known', '--project', p.project.id, flag, await file(content));
    expect(r.code).toBe(2);
    expect(r.err).toContain(flag);
    expect(r.err).toContain(message);
    const [row] = await deps.sql<{ a: unknown; l: unknown }[]>`
      SELECT apple_app_site_association AS a, assetlinks AS l FROM projects WHERE id = ${p.project.id}`;
    expect(row).toEqual({ a: null, l: null });
  });

  it('when no file or an unreadable file is given, then exit 2 with the reason', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const none = await cli('projects', 'set-well-known', '--project', p.project.id);
    expect(none.code).toBe(2);
    expect(none.err).toContain('give --aasa-file, --assetlinks-file or both');
    const missing = await cli(
      'projects',
      'set-well-known',
      '--project',
      p.project.id,
      '--aasa-file',
      path.join(dir, 'nope.json'),
    );
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('cannot be read');
  });

  it('when the project does not exist, then exit 2', async () => {
    const r = await cli(
      'projects',
      'set-well-known',
      '--project',
      '00000000-0000-4000-8000-000000000000',
      '--aasa-file',
      await file('{}'),
    );
    expect(r.code).toBe(2);
    expect(r.err).toContain('not found');
  });
});
