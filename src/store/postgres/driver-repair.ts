// postgres.js 3.4.9 can leave a pool connection unable to send its startup message after a socket
// closes with a write still queued (scripts/patch-postgres.mjs says how). `npm install` repairs the
// installed driver through the postinstall script; an install that skipped scripts (--ignore-scripts)
// keeps the fault, so startup says so once.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Logger } from 'pino';

/** The marker scripts/patch-postgres.mjs leaves in each repaired build. */
export const DRIVER_REPAIR_MARK = 'attribution-service: write scheduler repair';

/** The ESM build's connection.js, the one `import 'postgres'` loads. */
function driverSource(): string {
  const cjsEntry = createRequire(import.meta.url).resolve('postgres');
  return path.join(path.dirname(cjsEntry), '..', '..', 'src', 'connection.js');
}

/** 'repaired', 'unrepaired' (the 3.4.9 scheduler without the repair), or 'other' (a release that changed it). */
export function driverRepairState(): 'repaired' | 'unrepaired' | 'other' {
  const text = readFileSync(driverSource(), 'utf8');
  if (text.includes(DRIVER_REPAIR_MARK)) {
    return 'repaired';
  }
  return text.includes('    clearImmediate(nextWriteTimer)\n') ? 'unrepaired' : 'other';
}

export function warnIfDriverUnrepaired(log: Logger): void {
  try {
    if (driverRepairState() === 'unrepaired') {
      log.warn(
        'postgres.js is not repaired (installed with --ignore-scripts?): after a Postgres restart a pool connection can stall; run `node scripts/patch-postgres.mjs`',
      );
    }
  } catch (err) {
    log.warn({ err: String(err) }, 'could not read the postgres.js driver to check its repair');
  }
}
