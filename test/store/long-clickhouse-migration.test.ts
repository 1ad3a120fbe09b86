// A service-mode start whose ClickHouse migration copies a large table.
// Migrations 0019 and 0023 copy whole tables (report aggregates, click lookups) in one
// INSERT … SELECT each; on a deployment with a year of facts that copy runs for a while. README:
// "Every process (API, worker or CLI) applies pending Postgres and ClickHouse migrations when it
// starts" and the 0019 header: "Each table's steps can be re-run from the start after a crash".
// The ClickHouse server here is the test's chdb behind a small HTTP front that speaks the parts of
// ClickHouse's HTTP interface the client uses; it answers the 0019 copy of campaign_daily after
// 31 s, as a server copying a large campaign_daily would (measured on this machine with chdb:
// 2 M rows of campaign_daily copy in ~10 s, so ~6 M rows, about 18 M facts by the README's
// 3.4 M rows per 10 M facts, take 30 s). The copy itself is real and lands. The client's 30 s
// request timeout (a socket idle timeout; the server sends nothing while it copies) failed that
// start, and every start after it: migrations now go through a client of their own.
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { closeDeps, createDeps } from '../../src/deps.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { CH_MIGRATIONS } from '../../src/lib/paths.ts';
import type { ClickHouseClient } from '../../src/store/clickhouse/client.ts';
import { migrateClickHouse } from '../../src/store/clickhouse/migrate.ts';
import { listMigrationFiles } from '../../src/store/postgres/migrate.ts';
import { writeGeneratedFacts } from '../support/generated-facts.ts';
import { chJson, testClickHouse, testEnv } from '../support/harness.ts';

const SLOW_STATEMENT = /INSERT INTO campaign_daily_rebuild/;
const COPY_MS = 31_000;

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) {
    await c();
  }
});

/** A ClickHouse HTTP interface over the in-process engine: commands, JSONEachRow selects, inserts. */
async function httpFront(ch: ClickHouseClient): Promise<string> {
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) {
      chunks.push(c as Buffer);
    }
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://x');
    try {
      const insertQuery = url.searchParams.get('query');
      if (insertQuery) {
        const table = /INSERT INTO\s+(\w+)/i.exec(insertQuery)?.[1] ?? '';
        const values = body
          .split('\n')
          .filter((l) => l.trim() !== '')
          .map((l) => JSON.parse(l));
        await ch.insert({ table, values, format: 'JSONEachRow' });
        res.end('');
        return;
      }
      const select = /\n?FORMAT JSONEachRow\s*$/.exec(body);
      if (select) {
        const rs = await ch.query({ query: body.slice(0, select.index), format: 'JSONEachRow' });
        res.setHeader('Content-Type', 'application/x-ndjson');
        res.end(await rs.text());
        return;
      }
      const started = Date.now();
      await ch.command({ query: body });
      if (SLOW_STATEMENT.test(body)) {
        await new Promise((r) => setTimeout(r, Math.max(0, COPY_MS - (Date.now() - started))));
      }
      if (!res.destroyed) {
        res.end('');
      }
    } catch (err) {
      res.statusCode = 500;
      res.end(`Code: 1000. DB::Exception: ${(err as Error).message}`);
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise((r) => server.close(r)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('service-mode start over a ClickHouse migration that copies a large table', () => {
  it('when the 0019 copy of campaign_daily takes longer than 30 s on the server, then the start still completes the migration', async () => {
    const ch = await testClickHouse();
    const before = await mkdtemp(path.join(os.tmpdir(), 'long-migration-ch-'));
    cleanups.push(() => rm(before, { recursive: true, force: true }));
    for (const f of await listMigrationFiles(CH_MIGRATIONS, '.sql')) {
      if (f.version < 19) {
        await copyFile(f.file, path.join(before, f.name));
      }
    }
    await migrateClickHouse(ch, before);
    await writeGeneratedFacts(ch, 'long-copy', 3, 'long-copy');
    const url = await httpFront(ch);
    const env = await testEnv({ CLICKHOUSE_URL: url });
    cleanups.push(() => rm(env.DATA_DIR as string, { recursive: true, force: true }));

    let error: string | undefined;
    try {
      const deps = await createDeps(loadConfig(env), createLogger('silent'), { migrate: true });
      cleanups.push(() => closeDeps(deps));
    } catch (err) {
      error = (err as Error).message;
    }

    expect(error).toBeUndefined();
    const recorded = await chJson<{ n: string }>(
      ch,
      'SELECT toString(count()) AS n FROM schema_migrations WHERE version >= 19',
    );
    expect(Number(recorded[0]?.n)).toBe((await listMigrationFiles(CH_MIGRATIONS, '.sql')).length - 18);
  }, 120_000);
});
