// Operator CLI: runCli in-process against the test Postgres (output captured), plus the package bin
// as a real child process. Issue: keys are shown once and stored as hashes; every command takes
// --json; a bad flag exits 2 with a message naming it.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.ts';
import { hashKey } from '../../src/lib/ids.ts';
import { findProjectByKeyHash } from '../../src/store/postgres/projects.ts';
import { processDatabaseUrl, testEnv, useHarness } from '../support/harness.ts';
import { cleanEnv, killStartedChildren, startNode } from '../support/processes.ts';

const h = useHarness();
let env: Record<string, string | undefined>;
const dirs: string[] = [];

beforeAll(async () => {
  env = await testEnv();
  dirs.push(env.DATA_DIR as string);
});
afterAll(async () => {
  await killStartedChildren();
  for (const d of dirs) {
    await rm(d, { recursive: true, force: true });
  }
});

type Run = { code: number; out: string; err: string };

async function cli(...argv: string[]): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, env, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** Runs a --json command that must succeed; returns its one JSON value. */
async function cliJson<T>(...argv: string[]): Promise<T> {
  const r = await cli(...argv, '--json');
  expect(r.code, r.err).toBe(0);
  expect(r.out.split('\n')).toHaveLength(1);
  return JSON.parse(r.out) as T;
}

type CreatedProject = {
  id: string;
  name: string;
  token: string;
  server_key: string;
  timezone: string;
  currency: string;
};

let counter = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${Date.now().toString(36)}-${++counter}`;
const newCliProject = () => cliJson<CreatedProject>('projects', 'create', '--name', unique('cli project'));
const MISSING_PROJECT = '00000000-0000-4000-8000-000000000000';

describe('projects create', () => {
  it('when given a name, zone and currency with --json, then it prints one JSON object with the id, token and server key, and stores only the key hash', async () => {
    const name = unique('Acme');

    const p = await cliJson<CreatedProject>(
      'projects',
      'create',
      '--name',
      name,
      '--timezone',
      'Asia/Kolkata',
      '--currency',
      'eur',
    );

    expect(p).toMatchObject({ name, timezone: 'Asia/Kolkata', currency: 'EUR' });
    expect(p.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(p.token).toMatch(/^pt_/);
    expect(p.server_key).toMatch(/^sk_/);
    const keys = await h().deps.sql<{ key_hash: Buffer; key_prefix: string }[]>`
      SELECT key_hash, key_prefix FROM server_keys WHERE project_id = ${p.id}`;
    expect(keys).toHaveLength(1);
    expect(keys[0]?.key_hash.equals(hashKey(p.server_key))).toBe(true);
    expect(p.server_key.startsWith(keys[0]?.key_prefix ?? 'x')).toBe(true);
    expect((await findProjectByKeyHash(h().deps.sql, hashKey(p.server_key)))?.project.id).toBe(p.id);
  });

  it('when no zone or currency is given, then the project uses UTC and USD', async () => {
    const p = await newCliProject();

    expect(p).toMatchObject({ timezone: 'UTC', currency: 'USD' });
  });

  it('when run without --json, then it prints the id, token and server key readably, with a shown-once warning', async () => {
    const r = await cli('projects', 'create', '--name', unique('Readable'));

    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^project [0-9a-f-]{36} \(Readable-/);
    expect(r.out).toMatch(/token: +pt_\S+/);
    expect(r.out).toMatch(/server key: +sk_\S+/);
    expect(r.out).toContain('shown only now');
  });

  it.each([
    ['--timezone', ['--timezone', 'Mars/Olympus_Mons']],
    ['--currency', ['--currency', 'XYZ']],
    ['--currency', ['--currency', 'dollars']],
    ['--name', ['--name', '   ']],
  ])('when %s is bad (%j), then it exits 2 with a message naming the flag and creates nothing', async (flag, args) => {
    const r = await cli('projects', 'create', '--name', 'Bad input', ...args, '--json');

    expect(r.code).toBe(2);
    expect(r.err).toContain(flag);
    expect(r.out).toBe('');
  });

  it('when --name is missing, then it exits 2 naming the flag, with the usage', async () => {
    const r = await cli('projects', 'create', '--json');

    expect(r.code).toBe(2);
    expect(r.err).toContain('--name is required');
    expect(r.err).toContain('usage: npm run cli -- <command>');
  });
});

describe('projects list', () => {
  it('when --json, then it lists the created project without any server key', async () => {
    const p = await newCliProject();

    const list = await cliJson<Record<string, unknown>[]>('projects', 'list');

    const row = list.find((x) => x.id === p.id);
    expect(row).toMatchObject({ id: p.id, name: p.name, timezone: 'UTC', currency: 'USD', token: p.token });
    expect(JSON.stringify(list)).not.toContain(p.server_key);
  });

  it('when run without --json, then it prints an aligned table with the project', async () => {
    const p = await newCliProject();

    const r = await cli('projects', 'list');

    expect(r.code, r.err).toBe(0);
    expect(r.out.split('\n')[0]).toMatch(/^id +name +timezone +currency +token$/);
    expect(r.out).toContain(p.id);
    expect(r.out).not.toContain(p.server_key);
  });
});

describe('projects rotate-key', () => {
  it('when rotated, then the old key is revoked and stops working over HTTP, and the new key works', async () => {
    const p = await newCliProject();

    const rotated = await cliJson<{ project_id: string; server_key: string; revoked_keys: number }>(
      'projects',
      'rotate-key',
      '--project',
      p.id,
    );

    expect(rotated).toMatchObject({ project_id: p.id, revoked_keys: 1 });
    expect(rotated.server_key).not.toBe(p.server_key);
    const { sql } = h().deps;
    const [old] = await sql<{ revoked_at: Date | null }[]>`
      SELECT revoked_at FROM server_keys WHERE key_hash = ${hashKey(p.server_key)}`;
    expect(old?.revoked_at).toBeInstanceOf(Date);
    expect(await findProjectByKeyHash(sql, hashKey(p.server_key))).toBeUndefined();
    expect((await findProjectByKeyHash(sql, hashKey(rotated.server_key)))?.project.id).toBe(p.id);
    const { app } = h();
    const withOld = await app.inject({
      method: 'GET',
      url: '/api/v1/campaigns',
      headers: { 'service-key': p.server_key },
    });
    const withNew = await app.inject({
      method: 'GET',
      url: '/api/v1/campaigns',
      headers: { 'service-key': rotated.server_key },
    });
    expect(withOld.statusCode).toBe(401);
    expect(withNew.statusCode).toBe(200);
  });

  it('when run without --json, then it prints the new key and how many were revoked', async () => {
    const p = await newCliProject();

    const r = await cli('projects', 'rotate-key', '--project', p.id);

    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^new server key: sk_\S+\n\(1 earlier key\(s\) revoked/);
  });
});

type DomainJson = { id: number; name: string; is_primary: boolean };

describe('domains', () => {
  it('when domains are added, then the first is primary, a plain add is not, and --primary moves the primary', async () => {
    const p = await newCliProject();
    const [a, b, c] = [unique('a'), unique('b'), unique('c')].map((s) => `${s.toLowerCase()}.example.com`);

    const first = await cliJson<DomainJson>('domains', 'add', '--project', p.id, '--name', a as string);
    const second = await cliJson<DomainJson>('domains', 'add', '--project', p.id, '--name', b as string);
    const third = await cliJson<DomainJson>('domains', 'add', '--project', p.id, '--name', c as string, '--primary');
    const list = await cliJson<DomainJson[]>('domains', 'list', '--project', p.id);

    expect(first).toMatchObject({ name: a, is_primary: true });
    expect(second).toMatchObject({ name: b, is_primary: false });
    expect(third).toMatchObject({ name: c, is_primary: true });
    expect(list.map((d) => [d.name, d.is_primary])).toEqual([
      [a, false],
      [b, false],
      [c, true],
    ]);
  });

  it('when a domain is already registered (any case), then it exits 2 and says so', async () => {
    const p = await newCliProject();
    const name = `${unique('dup').toLowerCase()}.example.com`;
    await cliJson<DomainJson>('domains', 'add', '--project', p.id, '--name', name);

    const r = await cli('domains', 'add', '--project', p.id, '--name', name.toUpperCase(), '--json');

    expect(r.code).toBe(2);
    expect(r.err).toContain(`domain '${name}' is already registered`);
  });

  it.each(['not a host', 'https://links.example.com/x', 'localhost:8080', 'a..example.com'])(
    "when the host is '%s', then it exits 2 naming --name",
    async (bad) => {
      const p = await newCliProject();

      const r = await cli('domains', 'add', '--project', p.id, '--name', bad, '--json');

      expect(r.code).toBe(2);
      expect(r.err).toContain('--name');
      expect(await cliJson<DomainJson[]>('domains', 'list', '--project', p.id)).toEqual([]);
    },
  );

  it('when two new hosts are added to one project at once, then both are added and exactly one is primary', async () => {
    // Both adds used to read "no primary yet"; the second then hit the one-primary index and was
    // told its (new) name was already registered.
    for (let round = 0; round < 5; round++) {
      const p = await newCliProject();
      const [a, b] = [unique('ra'), unique('rb')].map((s) => `${s.toLowerCase()}.example.com`);

      const runs = await Promise.all(
        [a, b].map((name) => cli('domains', 'add', '--project', p.id, '--name', name as string, '--json')),
      );

      expect(runs.map((r) => [r.code, r.err])).toEqual([
        [0, ''],
        [0, ''],
      ]);
      const list = await cliJson<DomainJson[]>('domains', 'list', '--project', p.id);
      expect(list.map((d) => d.name).sort()).toEqual([a, b].sort());
      expect(list.filter((d) => d.is_primary)).toHaveLength(1);
    }
  });

  it('when two new hosts are added at once with --primary, then both are added and the primary is one of them', async () => {
    for (let round = 0; round < 5; round++) {
      const p = await newCliProject();
      const [first, a, b] = [unique('p0'), unique('pa'), unique('pb')].map((s) => `${s.toLowerCase()}.example.com`);
      await cliJson<DomainJson>('domains', 'add', '--project', p.id, '--name', first as string);

      const runs = await Promise.all(
        [a, b].map((name) => cli('domains', 'add', '--project', p.id, '--name', name as string, '--primary', '--json')),
      );

      expect(runs.map((r) => [r.code, r.err])).toEqual([
        [0, ''],
        [0, ''],
      ]);
      const list = await cliJson<DomainJson[]>('domains', 'list', '--project', p.id);
      expect(list.filter((d) => d.is_primary).map((d) => d.name)).toEqual([expect.stringMatching(/^p[ab]-/)]);
    }
  });

  // A link's Host header finds its project: the service host taken by one project made every other
  // project's service-host links answer 404.
  it.each([
    ["the service's own host (PUBLIC_URL)", 'attr.test', "is this service's own host (PUBLIC_URL)"],
    ['the service host in another case, with a final dot', 'ATTR.Test.', "is this service's own host (PUBLIC_URL)"],
    ['localhost', 'localhost', 'is a loopback host'],
    ['a name under localhost', 'links.localhost', 'is a loopback host'],
    ['an IPv4 address', '203.0.113.7', 'is an IP address'],
    ['an IPv6 address', '[2001:db8::1]', 'is an IP address'],
  ])('when the host is %s, then it exits 2 saying why and nothing is added', async (_case, name, why) => {
    const p = await newCliProject();

    const r = await cli('domains', 'add', '--project', p.id, '--name', name, '--json');

    expect(r.code).toBe(2);
    expect(r.err).toContain(`--name '${name}' ${why}`);
    expect(await cliJson<DomainJson[]>('domains', 'list', '--project', p.id)).toEqual([]);
    const [{ n } = { n: -1 }] = await h().deps.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM domains WHERE name IN ('attr.test', 'localhost', 'links.localhost')`;
    expect(n).toBe(0);
  });

  it('when listed without --json, then it prints a table marking the primary', async () => {
    const p = await newCliProject();
    const name = `${unique('t').toLowerCase()}.example.com`;
    await cliJson<DomainJson>('domains', 'add', '--project', p.id, '--name', name);

    const r = await cli('domains', 'list', '--project', p.id);

    expect(r.code, r.err).toBe(0);
    expect(r.out.split('\n')[0]).toMatch(/^id +name +primary$/);
    expect(r.out).toMatch(new RegExp(`${name.replace(/\./g, '\\.')} +yes`));
  });
});

type ListingJson = { store_listing_id: string; name: string; platform: string; store_url: string };

describe('store-listings', () => {
  it('when an IOS and an ANDROID listing are added, then both are listed with their store URLs', async () => {
    const p = await newCliProject();
    const ios = 'https://apps.apple.com/app/id123456789?ppid=abc';
    const android = 'https://play.google.com/store/apps/details?id=com.example&listing=spring';

    const a = await cliJson<ListingJson>(
      'store-listings',
      'add',
      '--project',
      p.id,
      '--platform',
      'ios',
      '--name',
      'Spring',
      '--url',
      ios,
    );
    const b = await cliJson<ListingJson>(
      'store-listings',
      'add',
      '--project',
      p.id,
      '--platform',
      'ANDROID',
      '--name',
      'Spring',
      '--url',
      android,
    );
    const list = await cliJson<ListingJson[]>('store-listings', 'list', '--project', p.id);

    expect(a).toMatchObject({ platform: 'IOS', name: 'Spring', store_url: ios });
    expect(a.store_listing_id).toMatch(/^sl_/);
    expect(b).toMatchObject({ platform: 'ANDROID', store_url: android });
    expect(list.map((l) => l.store_listing_id).sort()).toEqual([a.store_listing_id, b.store_listing_id].sort());
  });

  it.each([
    ['--platform', 'WINDOWS', 'https://apps.apple.com/app/id1'],
    ['--url', 'IOS', 'ftp://apps.apple.com/app/id1'],
    ['--url', 'IOS', 'javascript:alert(1)'],
    ['--url', 'IOS', 'not a url'],
  ])('when %s is bad (%s, %s), then it exits 2 naming the flag', async (flag, platform, url) => {
    const p = await newCliProject();

    const r = await cli(
      'store-listings',
      'add',
      '--project',
      p.id,
      '--platform',
      platform,
      '--name',
      'x',
      '--url',
      url,
      '--json',
    );

    expect(r.code).toBe(2);
    expect(r.err).toContain(flag);
    expect(await cliJson<ListingJson[]>('store-listings', 'list', '--project', p.id)).toEqual([]);
  });

  it('when listed without --json, then it prints a table', async () => {
    const p = await newCliProject();
    const url = 'https://play.google.com/store/apps/details?id=com.example';
    await cliJson('store-listings', 'add', '--project', p.id, '--platform', 'ANDROID', '--name', 'Main', '--url', url);

    const r = await cli('store-listings', 'list', '--project', p.id);

    expect(r.code, r.err).toBe(0);
    expect(r.out.split('\n')[0]).toMatch(/^store_listing_id +platform +name +store_url$/);
    expect(r.out).toContain(url);
  });
});

type AccountJson = { id: number; network: string; name: string; email: string; status: string };

describe('network-accounts', () => {
  it('when an account is added, then its network code is upper-cased, it defaults to ACTIVE and it is listed', async () => {
    const p = await newCliProject();

    const a = await cliJson<AccountJson>(
      'network-accounts',
      'add',
      '--project',
      p.id,
      '--network',
      'meta',
      '--name',
      'Main ads',
      '--email',
      'ads@example.com',
    );
    const list = await cliJson<AccountJson[]>('network-accounts', 'list', '--project', p.id);

    expect(a).toMatchObject({ network: 'META', name: 'Main ads', email: 'ads@example.com', status: 'ACTIVE' });
    expect(list).toEqual([a]);
  });

  it.each([
    ['--status', ['--status', 'PAUSED']],
    ['--email', ['--email', 'not-an-email']],
    ['--network', ['--network', 'bad-code!']],
  ])('when %s is bad, then it exits 2 naming the flag', async (flag, args) => {
    const p = await newCliProject();

    const r = await cli('network-accounts', 'add', '--project', p.id, '--network', 'GOOGLE', '--name', 'x', ...args);

    expect(r.code).toBe(2);
    expect(r.err).toContain(flag);
  });

  it('when listed without --json, then it prints a table', async () => {
    const p = await newCliProject();
    await cliJson('network-accounts', 'add', '--project', p.id, '--network', 'TIKTOK', '--name', 'TT');

    const r = await cli('network-accounts', 'list', '--project', p.id);

    expect(r.code, r.err).toBe(0);
    expect(r.out.split('\n')[0]).toMatch(/^id +network +name +email +status$/);
    expect(r.out).toMatch(/TIKTOK +TT +ACTIVE/);
  });
});

describe('bad invocations', () => {
  it.each([
    ['projects rotate-key', ['projects', 'rotate-key']],
    ['domains add', ['domains', 'add', '--name', 'x.example.com']],
    ['domains list', ['domains', 'list']],
    ['store-listings list', ['store-listings', 'list']],
    ['network-accounts list', ['network-accounts', 'list']],
    // --project is optional on these two: an unknown one exited 0 with nothing (or 1, not a uuid).
    ['deliveries dead-letters', ['deliveries', 'dead-letters']],
    ['deliveries replay', ['deliveries', 'replay']],
  ])('when %s gets an unknown project id, then it exits 2 saying it was not found', async (_name, argv) => {
    // 36 hex digits and dashes out of a uuid's order reached the uuid cast: exit 1.
    for (const id of [MISSING_PROJECT, 'not-a-uuid', '0123456789abcdef-0123456789abcdef-01']) {
      const r = await cli(...argv, '--project', id, '--json');

      expect(r.code).toBe(2);
      expect(r.err).toContain(`project '${id}' not found`);
      expect(r.out).toBe('');
    }
  });

  it.each([[['projects', 'frobnicate']], [['nonsense']], [[]]])(
    'when the command is unknown (%j), then it exits 2 with the usage on stderr',
    async (argv) => {
      const r = await cli(...argv);

      expect(r.code).toBe(2);
      expect(r.err).toContain('usage: npm run cli -- <command> [flags] [--json]');
      expect(r.err).toContain('projects create --name <name>');
      expect(r.out).toBe('');
    },
  );

  it('when a flag is unknown, then it exits 2 naming it, with the usage', async () => {
    const r = await cli('projects', 'list', '--bogus');

    expect(r.code).toBe(2);
    expect(r.err).toContain('--bogus');
    expect(r.err).toContain('usage:');
  });

  it('when a required flag is missing, then it exits 2 naming it', async () => {
    const p = await newCliProject();

    const r = await cli('store-listings', 'add', '--project', p.id, '--platform', 'IOS', '--name', 'x');

    expect(r.code).toBe(2);
    expect(r.err).toContain('--url is required');
  });

  it('when --help is given, then it prints the usage on stdout and exits 0', async () => {
    const r = await cli('projects', 'create', '--help');

    expect(r.code).toBe(0);
    expect(r.out).toContain('usage: npm run cli -- <command>');
  });

  it.each([['--help'], ['-h']])(
    'when %s is given alone (README: `npm run cli -- --help`), then the usage is on stdout and it exits 0',
    async (flag) => {
      const r = await cli(flag);

      expect([r.code, r.err]).toEqual([0, '']);
      expect(r.out).toContain('usage: npm run cli -- <command>');
    },
  );

  it('when no command is given, then the usage is on stderr and it exits 2', async () => {
    const r = await cli();

    expect([r.code, r.out]).toEqual([2, '']);
    expect(r.err).toContain('usage: npm run cli -- <command>');
  });
});

describe('package bin (bin/attribution.mjs)', () => {
  const binEnv = async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'attribution-cli-bin-'));
    dirs.push(dataDir);
    return cleanEnv({ DATABASE_URL: await processDatabaseUrl(), DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  };

  it('when run as `attribution projects create --name x --json`, then stdout is one JSON object with id, token and server_key', async () => {
    const child = startNode(['bin/attribution.mjs', 'projects', 'create', '--name', 'x', '--json'], await binEnv());

    const exit = await child.waitExit(60_000);

    expect(exit, child.stderr()).toEqual({ code: 0, signal: null });
    const lines = child.stdout().trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const p = JSON.parse(lines[0] as string) as CreatedProject;
    expect(p).toMatchObject({ name: 'x', timezone: 'UTC', currency: 'USD' });
    expect(p.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(p.token).toMatch(/^pt_/);
    expect(p.server_key).toMatch(/^sk_/);
    expect((await findProjectByKeyHash(h().deps.sql, hashKey(p.server_key)))?.project.id).toBe(p.id);
  }, 90_000);

  it('when run with an unknown command, then it exits 2 with the usage on stderr', async () => {
    const child = startNode(['bin/attribution.mjs', 'nope'], await binEnv());

    const exit = await child.waitExit(60_000);

    expect(exit.code).toBe(2);
    expect(child.stderr()).toContain('usage:');
    expect(child.stdout()).toBe('');
  }, 90_000);

  it('when run as `attribution migrate --json` (its own ClickHouse in DATA_DIR), then it applies migrations and prints {"ok":true}', async () => {
    const child = startNode(['bin/attribution.mjs', 'migrate', '--json'], await binEnv());

    const exit = await child.waitExit(90_000);

    expect(exit, child.stderr()).toEqual({ code: 0, signal: null });
    expect(JSON.parse(child.stdout())).toEqual({ ok: true });
  }, 120_000);
});
