// Migrations: forward-only, numbered, recorded, safe from two processes at once (issue). Postgres
// cases run in a throwaway database on the test server, so they start from nothing; ClickHouse
// cases use this process's chdb engine with temp migration dirs numbered 9xxx, clear of the real ones.
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { PG_MIGRATIONS } from '../../src/lib/paths.ts';
import { CH_MIGRATION_LOCK_ID, migrateClickHouse, splitStatements } from '../../src/store/clickhouse/migrate.ts';
import { insertSeenEventIds, insertSeenWebEventIds, seenEventKey } from '../../src/store/postgres/events.ts';
import { claimRows, insertOutboxRows, readBatch, retakeStaleBatch } from '../../src/store/postgres/fact-outbox.ts';
import { listMigrationFiles, migratePostgres } from '../../src/store/postgres/migrate.ts';
import { createPool, type Sql } from '../../src/store/postgres/pool.ts';
import { testClickHouse } from '../support/harness.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) {
    await rm(d, { recursive: true, force: true });
  }
});

async function migrationsDir(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'attribution-mig-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) {
    await writeFile(path.join(dir, name), text);
  }
  return dir;
}

/** The project's migrations split at `version`: a directory of those before it, and the names from it on. */
async function splitAt(version: number): Promise<{ before: string; after: string[] }> {
  const files = await listMigrationFiles(PG_MIGRATIONS, '.sql');
  const before = await migrationsDir({});
  for (const f of files.filter((m) => m.version < version)) {
    await copyFile(f.file, path.join(before, f.name));
  }
  return { before, after: files.filter((m) => m.version >= version).map((m) => m.name) };
}

/** Runs fn with pools on a new, empty database on the test server, then drops that database. */
async function withScratchDatabase(pools: number, fn: (sqls: Sql[]) => Promise<void>): Promise<void> {
  const adminUrl = inject('databaseUrl');
  const name = `attribution_mig_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  if (!/^attribution_mig_test_\w+$/.test(name)) {
    throw new Error(`refusing to create and drop '${name}'`);
  }
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const sqls: Sql[] = [];
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
    for (let i = 0; i < pools; i++) {
      sqls.push(createPool(url.toString(), 2));
    }
    await fn(sqls);
  } finally {
    await Promise.all(sqls.map((s) => s.end({ timeout: 5 })));
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end({ timeout: 5 });
  }
}

async function recordedVersions(sql: Sql): Promise<number[]> {
  const rows = await sql<{ version: number }[]>`SELECT version FROM schema_migrations ORDER BY version`;
  return rows.map((r) => r.version);
}

async function tableExists(sql: Sql, table: string): Promise<boolean> {
  const [row] = await sql<{ t: string | null }[]>`SELECT to_regclass(${table})::text AS t`;
  return row?.t != null;
}

describe('migratePostgres', () => {
  it('when run twice on a fresh database, then the first run applies every file in order and the second is a no-op', async () => {
    const files = await listMigrationFiles(PG_MIGRATIONS, '.sql');
    await withScratchDatabase(1, async ([sql]) => {
      const db = sql as Sql;

      const first = await migratePostgres(db, PG_MIGRATIONS);
      const second = await migratePostgres(db, PG_MIGRATIONS);

      expect(first).toEqual(files.map((f) => f.name));
      expect(second).toEqual([]);
      expect(await recordedVersions(db)).toEqual(files.map((f) => f.version));
      expect(await tableExists(db, 'projects')).toBe(true);
      expect(await tableExists(db, 'server_keys')).toBe(true);
    });
  });

  it('when two runners start at once on a fresh database (two processes starting), then each migration is applied and recorded exactly once', async () => {
    const files = await listMigrationFiles(PG_MIGRATIONS, '.sql');
    await withScratchDatabase(2, async ([a, b]) => {
      const [ranA, ranB] = await Promise.all([
        migratePostgres(a as Sql, PG_MIGRATIONS),
        migratePostgres(b as Sql, PG_MIGRATIONS),
      ]);

      expect([...ranA, ...ranB].sort()).toEqual(files.map((f) => f.name));
      const [dup] = await (a as Sql)<{ n: number }[]>`
        SELECT count(*)::int AS n FROM (SELECT version FROM schema_migrations GROUP BY version HAVING count(*) > 1) d`;
      expect(dup?.n).toBe(0);
      expect(await recordedVersions(a as Sql)).toEqual(files.map((f) => f.version));
      expect(await tableExists(b as Sql, 'projects')).toBe(true);
    });
  });

  it('when a migration fails, then its changes roll back, it is not recorded, earlier ones stay, and a fixed file applies on the next run', async () => {
    const dir = await migrationsDir({
      '0001_good.sql': '-- fine\nCREATE TABLE mig_good (id int);\n',
      '0002_bad.sql': '-- half works, then fails\nCREATE TABLE mig_half (id int);\nSELECT * FROM no_such_table;\n',
    });
    await withScratchDatabase(1, async ([sql]) => {
      const db = sql as Sql;

      await expect(migratePostgres(db, dir)).rejects.toThrow(/migration 0002_bad\.sql failed: .*no_such_table/);

      expect(await recordedVersions(db)).toEqual([1]);
      expect(await tableExists(db, 'mig_good')).toBe(true);
      expect(await tableExists(db, 'mig_half')).toBe(false);

      await writeFile(path.join(dir, '0002_bad.sql'), 'CREATE TABLE mig_half (id int);\n');
      expect(await migratePostgres(db, dir)).toEqual(['0002_bad.sql']);
      expect(await recordedVersions(db)).toEqual([1, 2]);
    });
  });

  it('when 0017 runs over an outbox with a batch a writer had claimed, then the batch keeps its id as a stale claim and the other rows stay claimable', async () => {
    const { before, after } = await splitAt(17);
    await withScratchDatabase(1, async ([sql]) => {
      const db = sql as Sql;
      await migratePostgres(db, before);
      const project = '00000000-0000-4000-8000-000000000017';
      await db`INSERT INTO fact_outbox (fact_table, fact_id, project_id, row, batch_id, claimed_at) VALUES
        ('clicks', 'ck_1', ${project}, '{"click_id":"ck_1"}', 7, now()),
        ('clicks', 'ck_2', ${project}, '{"click_id":"ck_2"}', 7, now()),
        ('clicks', 'ck_3', ${project}, '{"click_id":"ck_3"}', NULL, NULL)`;
      await db`SELECT setval('fact_batch_seq', 7)`;

      expect(await migratePostgres(db, PG_MIGRATIONS)).toEqual(after);
      const fresh = await readBatch(db, await claimRows(db, 'clicks', 10));
      const stale = await readBatch(db, await retakeStaleBatch(db, 'clicks', 0));

      expect(fresh?.rows.map((r) => r.factId)).toEqual(['ck_3']);
      expect(fresh?.batchId).not.toBe('7');
      expect(stale?.batchId).toBe('7');
      expect(stale?.rows.map((r) => r.factId)).toEqual(['ck_1', 'ck_2']);
      expect(await claimRows(db, 'clicks', 10)).toBeUndefined();
    });
  });

  it('when 0018 runs over an outbox with pending, resting and claimed rows, then each keeps its row and state, and the writer reads them and new rows alike', async () => {
    const { before, after } = await splitAt(18);
    await withScratchDatabase(1, async ([sql]) => {
      const db = sql as Sql;
      await migratePostgres(db, before);
      const project = '00000000-0000-4000-8000-000000000018';
      const row = (id: string) => ({ event_id: id, event_data: '{"a":"\\u00e9 \\"q\\""}', amount: '12.5' });
      await db`INSERT INTO fact_outbox (fact_table, fact_id, project_id, row, enrich_install, not_before) VALUES
        ('events', 'ev_1', ${project}, ${db.json(row('ev_1'))}, 'iid_1', NULL),
        ('events', 'ev_2', ${project}, ${db.json(row('ev_2'))}, 'iid_2', now() + interval '1 hour')`;
      // ev_1 claimed by a writer of that version (its claim knew no `bytes` column, migration 0020)
      const [held] = await db<{ id: string }[]>`
        WITH batch AS (
          INSERT INTO fact_batches (id, fact_table, claimed_at) VALUES (nextval('fact_batch_seq'), 'events', now())
          RETURNING id),
        claimed AS (
          INSERT INTO fact_claims (seq, batch_id) SELECT seq, (SELECT id FROM batch) FROM fact_outbox WHERE fact_id = 'ev_1'
          RETURNING 1)
        SELECT id::text FROM batch, (SELECT count(*) FROM claimed) AS n`;

      expect(await migratePostgres(db, PG_MIGRATIONS)).toEqual(after);
      await insertOutboxRows(db, [
        { table: 'events', factId: 'ev_3', projectId: project, row: row('ev_3'), enrichInstall: 'iid_3' },
        { table: 'events', factId: 'ev_4', projectId: project, row: row('ev_4'), resting: true },
      ]);
      const first = await readBatch(db, held?.id);
      const next = await readBatch(db, await claimRows(db, 'events', 10));
      const [types] = await db<{ t: string; resting: number }[]>`
        SELECT format_type(atttypid, atttypmod) AS t,
          (SELECT count(*)::int FROM fact_outbox WHERE not_before > now()) AS resting
        FROM pg_attribute WHERE attrelid = 'fact_outbox'::regclass AND attname = 'row'`;

      expect(types).toEqual({ t: 'json', resting: 2 });
      expect(first?.rows.map((r) => [r.factId, JSON.parse(r.json), r.enrichInstall])).toEqual([
        ['ev_1', row('ev_1'), 'iid_1'],
      ]);
      // ev_2 and ev_4 rest; ev_3 was written as its own JSON text
      expect(next?.rows.map((r) => [r.factId, r.json, r.enrichInstall])).toEqual([
        ['ev_3', JSON.stringify(row('ev_3')), 'iid_3'],
      ]);
    });
  });

  it('when 0020 runs over an outbox with pending rows, then they count as 0 bytes and a capped claim takes them with the new rows up to the cap', async () => {
    const { before, after } = await splitAt(20);
    await withScratchDatabase(1, async ([sql]) => {
      const db = sql as Sql;
      await migratePostgres(db, before);
      const project = '00000000-0000-4000-8000-000000000020';
      const rows = (...ids: string[]) =>
        ids.map((id) => ({ table: 'clicks', factId: id, projectId: project, row: { click_id: id } }));
      await db`INSERT INTO fact_outbox (fact_table, fact_id, project_id, row) VALUES
        ('clicks', 'ck_1', ${project}, '{"click_id":"ck_1"}'), ('clicks', 'ck_2', ${project}, '{"click_id":"ck_2"}')`;

      expect(await migratePostgres(db, PG_MIGRATIONS)).toEqual(after);
      await insertOutboxRows(db, rows('ck_3', 'ck_4'));
      const sizes = await db<{ fact_id: string; bytes: number | null }[]>`
        SELECT fact_id, bytes FROM fact_outbox ORDER BY seq`;
      const capped = await readBatch(db, await claimRows(db, 'clicks', 10, 1));

      expect(sizes).toEqual([
        { fact_id: 'ck_1', bytes: null },
        { fact_id: 'ck_2', bytes: null },
        { fact_id: 'ck_3', bytes: JSON.stringify({ click_id: 'ck_3' }).length },
        { fact_id: 'ck_4', bytes: JSON.stringify({ click_id: 'ck_4' }).length },
      ]);
      expect(capped?.rows.map((r) => r.factId)).toEqual(['ck_1', 'ck_2', 'ck_3']);
    });
  });

  it('when 0021 runs over installs sharing a push token, then the install that stored it last keeps it and the others hold none', async () => {
    const { before, after } = await splitAt(21);
    await withScratchDatabase(1, async ([sql]) => {
      const db = sql as Sql;
      await migratePostgres(db, before);
      const [a, b] = ['00000000-0000-4000-8000-000000000021', '00000000-0000-4000-8000-000000000121'];
      await db`INSERT INTO projects (id, name, token) VALUES (${a}, 'a', 'pt_0021_a'), (${b}, 'b', 'pt_0021_b')`;
      await db`INSERT INTO installs (project_id, install_instance_id, push_token, push_token_updated_at, push_failures)
        VALUES (${a}, 'old', 'tok', now() - interval '2 days', 2), (${a}, 'new', 'tok', now() - interval '1 day', 1),
          (${a}, 'tie-1', 'tie', '2026-01-01', 0), (${a}, 'tie-2', 'tie', '2026-01-01', 0),
          (${a}, 'alone', 'solo', now(), 1), (${b}, 'other', 'tok', now() - interval '3 days', 1)`;

      expect(await migratePostgres(db, PG_MIGRATIONS)).toEqual(after);
      const rows = await db<{ project: string; iid: string; push_token: string | null; push_failures: number }[]>`
        SELECT CASE project_id WHEN ${a} THEN 'a' ELSE 'b' END AS project, install_instance_id AS iid, push_token,
          push_failures FROM installs ORDER BY project, iid`;

      expect(rows).toEqual([
        { project: 'a', iid: 'alone', push_token: 'solo', push_failures: 1 },
        { project: 'a', iid: 'new', push_token: 'tok', push_failures: 1 },
        { project: 'a', iid: 'old', push_token: null, push_failures: 0 },
        { project: 'a', iid: 'tie-1', push_token: null, push_failures: 0 },
        { project: 'a', iid: 'tie-2', push_token: 'tie', push_failures: 0 },
        { project: 'b', iid: 'other', push_token: 'tok', push_failures: 1 },
      ]);
      expect(await tableExists(db, 'installs_by_push_token')).toBe(true);
    });
  });

  it('when 0022 runs over queued deliveries and decided installs, then no delivery is held and no install has network details', async () => {
    const { before, after } = await splitAt(22);
    await withScratchDatabase(1, async ([sql]) => {
      const db = sql as Sql;
      await migratePostgres(db, before);
      const a = '00000000-0000-4000-8000-000000000022';
      await db`INSERT INTO projects (id, name, token) VALUES (${a}, 'a', 'pt_0022_a')`;
      await db`INSERT INTO installs (project_id, install_instance_id, attribution_status) VALUES (${a}, 'i-1', 'decided')`;
      await db`INSERT INTO deliveries (project_id, destination, event_key, install_instance_id, event_time, payload)
        VALUES (${a}, 'webhook:1', 'signup:i-1:u-1', 'i-1', now(), '{"event_type":"signup"}')`;

      expect(await migratePostgres(db, PG_MIGRATIONS)).toEqual(after);

      expect(await db`SELECT status, held_for_attribution FROM deliveries WHERE project_id = ${a}`).toEqual([
        { status: 'pending', held_for_attribution: false },
      ]);
      expect(await db`SELECT network_details FROM installs WHERE project_id = ${a}`).toEqual([
        { network_details: null },
      ]);
    });
  });

  it('when 0040 runs over web claims kept as `web:` ids, then a web event sent again is still a duplicate and app claims stay', async () => {
    const { before, after } = await splitAt(40);
    await withScratchDatabase(1, async ([sql]) => {
      const db = sql as Sql;
      await migratePostgres(db, before);
      const a = '00000000-0000-4000-8000-000000000040';
      await db`INSERT INTO projects (id, name, token) VALUES (${a}, 'a', 'pt_0040_a')`;
      await db`INSERT INTO seen_event_ids (project_id, event_id) VALUES (${a}, 'web:w-1'), (${a}, 'app-1')`;
      await db`INSERT INTO user_deletions (project_id, user_id, install_ids, ad_ids) VALUES (${a}, 'u-1', '{}', '{}')`;

      expect(await migratePostgres(db, PG_MIGRATIONS)).toEqual(after);
      const web = await insertSeenWebEventIds(db, [
        { projectId: a, eventId: 'w-1' },
        { projectId: a, eventId: 'w-2' },
      ]);
      const app = await insertSeenEventIds(db, [
        { projectId: a, eventId: 'app-1' },
        { projectId: a, eventId: 'w-1' },
      ]);

      expect([...web]).toEqual([seenEventKey(a, 'w-2')]);
      expect([...app]).toEqual([seenEventKey(a, 'w-1')]);
      expect(await db`SELECT visitor_ids FROM user_deletions WHERE project_id = ${a}`).toEqual([{ visitor_ids: [] }]);
    });
  });

  it('when a file name has no 4-digit number, then listing the migrations fails naming the file', async () => {
    const dir = await migrationsDir({ '0001_ok.sql': 'SELECT 1;', 'add_things.sql': 'SELECT 1;' });

    await expect(listMigrationFiles(dir, '.sql')).rejects.toThrow(/add_things\.sql/);
  });
});

describe('migrateClickHouse', () => {
  type Version = { version: number; name: string };
  const versionsIn = async (prefix: number) => {
    const ch = await testClickHouse();
    const rs = await ch.query({
      query: `SELECT toUInt32(version) AS version, name FROM schema_migrations
        WHERE intDiv(version, 10) = {p:UInt32} ORDER BY version`,
      query_params: { p: prefix },
      format: 'JSONEachRow',
    });
    return rs.json<Version>();
  };

  it('when run twice, then each file is applied once, recorded in schema_migrations, and the second run is a no-op', async () => {
    const ch = await testClickHouse();
    const dir = await migrationsDir({
      '9001_create_mig_a.sql':
        '-- two statements, split on the line-final semicolon\nCREATE TABLE IF NOT EXISTS mig_a (x UInt8) ENGINE = MergeTree ORDER BY x;\nINSERT INTO mig_a VALUES (1);\n',
      '9002_create_mig_b.sql': 'CREATE TABLE IF NOT EXISTS mig_b (y String) ENGINE = MergeTree ORDER BY y\n',
    });

    const first = await migrateClickHouse(ch, dir);
    const second = await migrateClickHouse(ch, dir);

    expect(first).toEqual(['9001_create_mig_a.sql', '9002_create_mig_b.sql']);
    expect(second).toEqual([]);
    expect(await versionsIn(900)).toEqual([
      { version: 9001, name: '9001_create_mig_a.sql' },
      { version: 9002, name: '9002_create_mig_b.sql' },
    ]);
    const rows = await (await ch.query({ query: 'SELECT count() AS n FROM mig_a', format: 'JSONEachRow' })).json<{
      n: string | number;
    }>();
    expect(Number(rows[0]?.n)).toBe(1);
  });

  it('when two runners start at once (serialised by the Postgres advisory lock), then each file is applied and recorded once', async () => {
    const ch = await testClickHouse();
    const dir = await migrationsDir({
      '9011_create_mig_c.sql':
        'CREATE TABLE IF NOT EXISTS mig_c (x UInt8) ENGINE = MergeTree ORDER BY x;\nINSERT INTO mig_c VALUES (7);\n',
    });
    const url = inject('databaseUrl');
    const a = createPool(url, 2);
    const b = createPool(url, 2);
    try {
      const [ranA, ranB] = await Promise.all([migrateClickHouse(ch, dir, a), migrateClickHouse(ch, dir, b)]);

      expect([...ranA, ...ranB]).toEqual(['9011_create_mig_c.sql']);
      expect(await versionsIn(901)).toEqual([{ version: 9011, name: '9011_create_mig_c.sql' }]);
      const rows = await (await ch.query({ query: 'SELECT count() AS n FROM mig_c', format: 'JSONEachRow' })).json<{
        n: string | number;
      }>();
      expect(Number(rows[0]?.n)).toBe(1);
    } finally {
      await Promise.all([a.end({ timeout: 5 }), b.end({ timeout: 5 })]);
    }
  });

  it('when the lock is lost between statements (Postgres restarted), then the run stops before the next one and records nothing', async () => {
    const ch = await testClickHouse();
    const dir = await migrationsDir({
      '9031_lock_lost.sql':
        'CREATE TABLE IF NOT EXISTS mig_d (x UInt8) ENGINE = MergeTree ORDER BY x;\nINSERT INTO mig_d VALUES (1);\n',
    });
    const url = inject('databaseUrl');
    const runner = createPool(url, 2);
    const admin = createPool(url, 1);
    // The first statement's command ends the backend holding the lock, as a Postgres restart would.
    const cutting = new Proxy(ch, {
      get(target, key, receiver) {
        if (key !== 'command') {
          return Reflect.get(target, key, receiver);
        }
        return async (arg: Parameters<typeof target.command>[0]) => {
          const done = await target.command(arg);
          if (arg.query.startsWith('CREATE TABLE IF NOT EXISTS mig_d')) {
            await admin`SELECT pg_terminate_backend(pid) FROM pg_locks
              WHERE locktype = 'advisory' AND granted AND objid = ${CH_MIGRATION_LOCK_ID}`;
          }
          return done;
        };
      },
    });
    try {
      await expect(migrateClickHouse(cutting, dir, runner)).rejects.toThrow(/migration lock was lost/);

      expect(await versionsIn(903)).toEqual([]);
      const rows = await (await ch.query({ query: 'SELECT count() AS n FROM mig_d', format: 'JSONEachRow' })).json<{
        n: string | number;
      }>();
      expect(Number(rows[0]?.n)).toBe(0);
    } finally {
      await Promise.all([runner.end({ timeout: 5 }), admin.end({ timeout: 5 })]);
    }
  });

  it('when a statement fails, then the file is not recorded and the run reports the error', async () => {
    const ch = await testClickHouse();
    const dir = await migrationsDir({ '9021_broken.sql': 'SELECT * FROM no_such_table_anywhere;\n' });

    await expect(migrateClickHouse(ch, dir)).rejects.toThrow(/no_such_table_anywhere/);

    expect(await versionsIn(902)).toEqual([]);
  });
});

describe('splitStatements', () => {
  it('when statements end with a line-final semicolon, then each is one statement', () => {
    expect(splitStatements('CREATE TABLE a (x UInt8);\nCREATE TABLE b (y UInt8);\n')).toEqual([
      'CREATE TABLE a (x UInt8)',
      'CREATE TABLE b (y UInt8)',
    ]);
  });

  it('when a semicolon is inside a line, then it does not split', () => {
    expect(splitStatements("SELECT ';' AS a, 'x;y' AS b;\n")).toEqual(["SELECT ';' AS a, 'x;y' AS b"]);
  });

  it('when the semicolon has trailing spaces or a CRLF, or the last statement has none, then it still splits', () => {
    expect(splitStatements('SELECT 1;  \r\nSELECT 2; \t\nSELECT 3')).toEqual(['SELECT 1', 'SELECT 2', 'SELECT 3']);
  });

  it('when a statement spans lines, then it stays whole', () => {
    expect(splitStatements('CREATE TABLE t (\n  x UInt8, -- a column\n  y String\n) ENGINE = Memory;\n')).toEqual([
      'CREATE TABLE t (\n  x UInt8, -- a column\n  y String\n) ENGINE = Memory',
    ]);
  });

  it('when chunks hold only comments or blanks, then they are dropped; a header comment stays with its statement', () => {
    expect(splitStatements('-- header\nCREATE TABLE a (x UInt8);\n\n-- trailing note\n;\n\n')).toEqual([
      '-- header\nCREATE TABLE a (x UInt8)',
    ]);
    expect(splitStatements('')).toEqual([]);
    expect(splitStatements('-- nothing here\n')).toEqual([]);
  });
});
