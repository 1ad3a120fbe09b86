// `skan set-schema` / `skan show` / `skan dry-run` through the CLI command table: a schema file is
// validated (a bad one is an input error naming the field) and stored as the next version; event
// names are cleaned as capture-event cleans them (never a raw database error).
import { randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.ts';
import { InputError } from '../../src/domain/projects/input-error.ts';
import { init, post, useClientHarness } from '../support/client.ts';
import { newProject } from '../support/harness.ts';

const h = useClientHarness();
const command = (...p: string[]) => {
  const c = COMMANDS.find((x) => x.path.join(' ') === p.join(' '));
  if (!c) {
    throw new Error(`no command ${p.join(' ')}`);
  }
  return c;
};

async function file(content: unknown): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'skan-cli-'));
  const f = path.join(dir, 'schema.json');
  await writeFile(f, JSON.stringify(content));
  return f;
}

describe('skan CLI', () => {
  it('when a valid file is set twice, then versions 1 and 2 and show prints version 2', async () => {
    const p = await newProject(h().deps);
    const schema = { rules: [{ fine: 5, coarse: 'medium', lock: false, conditions: [{ type: 'signup' }] }] };
    const f = await file(schema);
    const run = (c: string, flags: Record<string, string>) => command('skan', c).run(h().deps, flags, () => {});

    const first = await run('set-schema', { project: p.project.id, file: f });
    const second = await run('set-schema', { project: p.project.id, file: f });
    const shown = await run('show', { project: p.project.id });
    const dry = await run('dry-run', { project: p.project.id, sample: '10' });

    expect(first.json).toEqual({ version: 1 });
    expect(second.text).toBe('SKAN schema saved as version 2');
    expect(shown.json).toEqual({ version: 2, created_at: expect.any(String), schema });
    expect(dry.json).toEqual([]);
  });

  it('when the file breaks a rule or --sample is out of range, then an input error says which', async () => {
    const p = await newProject(h().deps);
    const bad = await file({ rules: [{ fine: 5, coarse: 'MEDIUM', conditions: [{ type: 'signup' }] }] });

    const setBad = command('skan', 'set-schema').run(h().deps, { project: p.project.id, file: bad }, () => {});
    const sampleBad = command('skan', 'dry-run').run(h().deps, { project: p.project.id, sample: '0' }, () => {});

    await expect(setBad).rejects.toThrow(InputError);
    await expect(setBad).rejects.toThrow(/^--file: invalid SKAN schema: rules\.0\.coarse: /);
    await expect(sampleBad).rejects.toThrow('--sample must be a whole number from 1 to 10000');
  });

  it('when the file names an event with U+0000, then it is stored without it (no database error)', async () => {
    const p = await newProject(h().deps);
    const cond = (name: string) => ({ rules: [{ fine: 3, coarse: 'low', conditions: [{ type: 'event', name }] }] });
    const odd = await file(cond('a\u0000b'));
    const onlyNul = await file(cond('\u0000'));

    const saved = await command('skan', 'set-schema').run(h().deps, { project: p.project.id, file: odd }, () => {});
    const shown = await command('skan', 'show').run(h().deps, { project: p.project.id }, () => {});
    const refused = command('skan', 'set-schema').run(h().deps, { project: p.project.id, file: onlyNul }, () => {});

    expect(saved.json).toEqual({ version: 1 });
    expect(shown.json).toMatchObject({ version: 1, schema: cond('ab') });
    await expect(refused).rejects.toThrow(InputError);
    await expect(refused).rejects.toThrow(/^--file: invalid SKAN schema: rules\.0\.conditions\.0\.name: /);
  });

  it('when dry-run has no --file, then live values of the current schema are shown; with one, totals and a note', async () => {
    const p = await newProject(h().deps);
    const f = await file({ rules: [{ fine: 5, coarse: 'medium', conditions: [{ type: 'signup' }] }] });
    await command('skan', 'set-schema').run(h().deps, { project: p.project.id, file: f }, () => {});
    const iid = randomUUID();
    await init(h(), p.token, { install_instance_id: iid, platform: 'IOS' });
    await post(h(), 'trigger', { token: p.token, platform: 'IOS', install_instance_id: iid, user_data: { id: 'u1' } });
    const dryRun = (flags: Record<string, string>) =>
      command('skan', 'dry-run').run(h().deps, { project: p.project.id, ...flags }, () => {});

    const current = await dryRun({});
    const tried = await dryRun({ file: f });

    const window0 = { fine: 5, coarse: 'medium', lock: false, window: 0 };
    expect(current.json).toEqual([
      { install_instance_id: iid, current_fine: 5, windows: [{ ...window0, from: 'live' }] },
    ]);
    expect(current.text).not.toContain('totals');
    expect(tried.json).toEqual([
      { install_instance_id: iid, current_fine: 5, windows: [{ ...window0, from: 'totals' }] },
    ]);
    expect(tried.text).toContain("totals: the schema evaluated once on the window's final activity;");
  });
});
