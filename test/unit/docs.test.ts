// Docs stay true to the code: every setting of src/config.ts is in README's configuration table
// and in .env.example, and every CLI command is in README's CLI table.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.ts';
import { envSchema } from '../../src/config.ts';
import { ROOT } from '../../src/lib/paths.ts';

const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const envExample = readFileSync(path.join(ROOT, '.env.example'), 'utf8');
const settings = Object.keys(envSchema.shape);

describe('README and .env.example', () => {
  it.each(settings)('when %s is a setting, then README documents it in the configuration table', (name) => {
    expect(readme).toContain(`| \`${name}\` |`);
  });

  it.each(settings)('when %s is a setting, then .env.example lists it', (name) => {
    expect(envExample).toMatch(new RegExp(`^#?\\s*${name}=`, 'm'));
  });

  it.each(COMMANDS.map((c) => c.path.join(' ')))('when `%s` is a CLI command, then README shows it', (command) => {
    expect(readme).toContain(command);
  });
});
