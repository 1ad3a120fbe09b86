// Child process for test/store/type-fetch-guard.test.ts: a pool through the test's proxy, with or
// without the guard main.ts installs. Prints the outcome of two queries as one JSON line.
import { createLogger } from '../../src/lib/logger.ts';
import { createPool } from '../../src/store/postgres/pool.ts';
import { guardTypeFetchRejections } from '../../src/store/postgres/type-fetch-guard.ts';

const [url, mode] = process.argv.slice(2);
if (mode === 'guard') {
  guardTypeFetchRejections(createLogger('warn'));
}
const sql = createPool(url as string, 2);
const outcome = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (err: { code?: string }) => `failed ${err.code}`,
  );
const first = await outcome(sql`SELECT 1 AS x`);
await new Promise((resolve) => setTimeout(resolve, 300));
const second = await outcome(sql`SELECT 1 AS x`);
process.stdout.write(`${JSON.stringify({ first, second })}\n`);
await sql.end({ timeout: 1 });
