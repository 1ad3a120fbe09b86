// The CLI's command list against the README (runCli in-process, output captured). README "CLI":
// every command listed exists with its flags, and `--help` prints the command list with every flag
// on stdout (exit 0).
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS, HELP } from '../../src/cli/commands.ts';
import { parseFlags } from '../../src/cli/flags.ts';
import { runCli } from '../../src/cli/main.ts';
import { testEnv } from '../support/harness.ts';

let env: Record<string, string | undefined>;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => rm(env.DATA_DIR as string, { recursive: true, force: true }));

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, env, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const README = readFileSync(path.join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');

/** Splits a README example like a shell: double-quoted words kept whole. */
function words(s: string): string[] {
  return [...s.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? '');
}

describe('README commands', () => {
  const examples = [...README.matchAll(/`npm run cli -- ([^`]+)`/g)]
    .map((m) => m[1] as string)
    .filter((ex) => ex !== '...'); // prose placeholder

  it('when every `npm run cli -- …` example of the README is parsed, then it names a command and only its flags', () => {
    expect(examples.length).toBeGreaterThan(30);
    const problems: string[] = [];
    for (const ex of examples) {
      const argv = words(ex);
      const spec = COMMANDS.find((c) => c.path.every((w, i) => argv[i] === w));
      if (!spec) {
        problems.push(`no command: ${ex}`);
        continue;
      }
      try {
        parseFlags(argv.slice(spec.path.length), spec.flags);
      } catch (err) {
        problems.push(`${ex}: ${(err as Error).message}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('when --help is asked on every command, then the full list is on stdout, exit 0, and it names every flag of the command', async () => {
    const problems: string[] = [];
    for (const spec of COMMANDS) {
      const r = await cli(...spec.path, '--help');
      if (r.code !== 0 || r.err !== '' || r.out !== HELP) {
        problems.push(`${spec.path.join(' ')}: ${r.code} ${r.err}`);
      }
      const line = HELP.split('\n').find((l) => l.startsWith(`  ${spec.path.join(' ')}`)) ?? '';
      for (const flag of Object.keys(spec.flags)) {
        if (!line.includes(`--${flag}`)) {
          problems.push(`${spec.path.join(' ')} --${flag} missing from the help`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});
