// Repository-relative paths (migrations), found from this file whether run from src/ or dist/.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(start: string): string {
  let dir = start;
  while (!existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) {
      throw new Error(`package.json not found above ${start}`);
    }
    dir = up;
  }
  return dir;
}

export const ROOT = findRoot(path.dirname(fileURLToPath(import.meta.url)));
export const PG_MIGRATIONS = path.join(ROOT, 'sql', 'migrations');
export const CH_MIGRATIONS = path.join(ROOT, 'clickhouse', 'migrations');
