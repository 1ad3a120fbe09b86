// Child of test/e2e/embedded-postgres-sharing.test.ts: a CLI command that runs for as long as the
// test wants. It opens Postgres exactly as the Postgres-only CLI commands do (createPgDeps as 'cli':
// in embedded mode it starts the embedded Postgres when none runs), prints 'cli: postgres open', and
// closes on the IPC message 'close' ('cli: closed'), then exits 0.
import { loadConfig } from '../../src/config.ts';
import { closeDeps, createPgDeps } from '../../src/deps.ts';
import { createLogger } from '../../src/lib/logger.ts';

const log = createLogger(process.env.LOG_LEVEL ?? 'info');
const deps = await createPgDeps(loadConfig(process.env), log, { migrate: true, embeddedClient: 'cli' });
await deps.sql`SELECT 1`;
process.stdout.write('cli: postgres open\n');
process.once('message', async () => {
  await closeDeps(deps);
  process.stdout.write('cli: closed\n');
  process.exit(0);
});
