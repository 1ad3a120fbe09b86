// README "Configuration": "A bad value stops the start with a message that names the setting. An
// empty value counts as unset, for every setting", and LOG_LEVEL: "The CLI logs to stderr at `warn`
// unless `LOG_LEVEL` is set." README "CLI": "The exit code is 0 on success, 2 for a usage or input
// error ... and 1 for any other failure." The CLI built its logger from the raw LOG_LEVEL before
// the configuration was parsed, so a blank LOG_LEVEL (a `.env` line left empty) crashed every command.

import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { processDatabaseUrl } from '../support/harness.ts';
import { cleanEnv, startNode } from '../support/processes.ts';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function runBin(args: string[], extra: Record<string, string>) {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'cli-log-level-'));
  dirs.push(dataDir);
  const child = startNode(
    ['bin/attribution.mjs', ...args],
    cleanEnv({ DATABASE_URL: await processDatabaseUrl(), DATA_DIR: dataDir, ...extra }),
  );
  const exit = await child.waitExit(60_000);
  return { code: exit.code, out: child.stdout(), err: child.stderr() };
}

describe('LOG_LEVEL in the CLI', () => {
  it('when LOG_LEVEL is empty, then it counts as unset: `projects list --json` exits 0 with its JSON', async () => {
    const r = await runBin(['projects', 'list', '--json'], { LOG_LEVEL: '' });

    expect(r.code, r.err).toBe(0);
    expect(Array.isArray(JSON.parse(r.out))).toBe(true);
  }, 90_000);

  it('when LOG_LEVEL is not a level, then the command exits 2 with the configuration message naming LOG_LEVEL', async () => {
    const r = await runBin(['projects', 'list', '--json'], { LOG_LEVEL: 'loud' });

    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^error: Invalid configuration:\n {2}LOG_LEVEL: /m);
    expect(r.err).not.toContain('node_modules/pino');
  }, 90_000);
});
