// `skan set-schema` / `skan show` / `skan dry-run` through the CLI command table: a schema file is
// validated (a bad one is an input error naming the field) and stored as the next version.
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.ts';
import { InputError } from '../../src/domain/projects/input-error.ts';
import { newProject, useHarness } from '../support/harness.ts';

const h = useHarness();
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
});
