// CLI `mcp create-token | list-tokens | revoke-token` (product-notes "MCP": the token is in the URL,
// at most 10 tokens per project), run in-process with runCli against the test Postgres. The token is
// printed once and stored only as its SHA-256; listings never show it; the 11th live token is
// refused with exit 2; a revoked token's URL answers 401 at once.
import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.ts';
import { createMcpToken } from '../../src/domain/mcp/create-mcp-token.ts';
import { newProject, testEnv, useHarness } from '../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });
let env: Record<string, string | undefined>;

beforeAll(async () => {
  env = await testEnv();
});
afterAll(async () => {
  await rm(env.DATA_DIR as string, { recursive: true, force: true });
});

type Run = { code: number; out: string; err: string };

async function cli(...argv: string[]): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, env, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

async function cliJson<T>(...argv: string[]): Promise<T> {
  const r = await cli(...argv, '--json');
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out) as T;
}

type Created = {
  project_id: string;
  id: number;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: null;
  path: string;
  url: string;
};
type Listed = { id: number; name: string; prefix: string; created_at: string; last_used_at: string | null };

const ping = (path: string) =>
  h().app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/json' },
    payload: { jsonrpc: '2.0', id: 1, method: 'ping' },
  });

describe('mcp create-token', () => {
  it('when --json, then the URL path holds the token once, and only its SHA-256 is stored', async () => {
    const p = await newProject(h().deps);

    const t = await cliJson<Created>('mcp', 'create-token', '--project', p.project.id, '--name', 'Claude desktop');

    const token = t.path.slice('/mcp/'.length);
    expect(token).toMatch(/^mcp_[A-Za-z0-9_-]{43}$/);
    expect(t).toMatchObject({ project_id: p.project.id, name: 'Claude desktop', prefix: token.slice(0, 8) });
    expect(t.url).toBe(`https://attr.test/mcp/${token}`);
    const rows = await h().deps.sql<
      Record<string, unknown>[]
    >`SELECT * FROM mcp_tokens WHERE project_id = ${p.project.id}`;
    expect(rows).toHaveLength(1);
    expect(rows[0]?.token_hash).toEqual(createHash('sha256').update(token).digest());
    expect(JSON.stringify(rows)).not.toContain(token.slice(8));
    expect((await ping(t.path)).statusCode).toBe(200);
  });

  it('when run without --json, then it prints the URL with a shown-once warning', async () => {
    const p = await newProject(h().deps);

    const r = await cli('mcp', 'create-token', '--project', p.project.id);

    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^MCP token \d+ for project /);
    expect(r.out).toMatch(/url: {2}https:\/\/attr\.test\/mcp\/mcp_[A-Za-z0-9_-]{43}\n/);
    expect(r.out).toContain('shown only now');
  });

  it('when the project holds 10 live tokens, then the 11th is refused with exit 2; after a revoke one more fits', async () => {
    const p = await newProject(h().deps);
    const made: Created[] = [];
    for (let i = 0; i < 10; i++) {
      made.push(await cliJson<Created>('mcp', 'create-token', '--project', p.project.id, '--name', `t${i}`));
    }

    const eleventh = await cli('mcp', 'create-token', '--project', p.project.id);
    await cliJson('mcp', 'revoke-token', '--project', p.project.id, '--id', String(made[3]?.id));
    const again = await cli('mcp', 'create-token', '--project', p.project.id);

    expect(eleventh.code).toBe(2);
    expect(eleventh.err).toBe(
      `error: project '${p.project.id}' already has 10 MCP tokens, the most it may hold; revoke one first (see: mcp list-tokens)`,
    );
    expect(eleventh.out).toBe('');
    expect(again.code, again.err).toBe(0);
    const [{ n } = { n: 0 }] = await h().deps.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM mcp_tokens WHERE project_id = ${p.project.id} AND revoked_at IS NULL`;
    expect(n).toBe(10);
  });

  it('when two issues race for the tenth place, then exactly one gets it (the count runs under the project lock)', async () => {
    const p = await newProject(h().deps);
    for (let i = 0; i < 9; i++) {
      await createMcpToken(h().deps, p.project.id, {});
    }

    const results = await Promise.allSettled([
      createMcpToken(h().deps, p.project.id, { name: 'x' }),
      createMcpToken(h().deps, p.project.id, { name: 'y' }),
    ]);

    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const [{ n } = { n: 0 }] = await h().deps.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM mcp_tokens WHERE project_id = ${p.project.id} AND revoked_at IS NULL`;
    expect(n).toBe(10);
  });

  it('when the project is unknown or the name is bad, then exit 2 names it and nothing is stored', async () => {
    const p = await newProject(h().deps);

    const missing = await cli('mcp', 'create-token', '--project', '00000000-0000-4000-8000-000000000000');
    const control = await cli('mcp', 'create-token', '--project', p.project.id, '--name', 'bad\u001b[31m');
    const long = await cli('mcp', 'create-token', '--project', p.project.id, '--name', 'x'.repeat(101));

    expect(missing).toMatchObject({ code: 2, err: expect.stringContaining('not found') });
    expect(control).toMatchObject({ code: 2, err: expect.stringContaining('--name') });
    expect(long).toMatchObject({ code: 2, err: expect.stringContaining('--name') });
    expect(await h().deps.sql`SELECT 1 FROM mcp_tokens WHERE project_id = ${p.project.id}`).toHaveLength(0);
  });
});

describe('mcp list-tokens', () => {
  it('when listed, then ids, names, prefixes and times of the live tokens only, never a token or hash', async () => {
    const p = await newProject(h().deps);
    const a = await cliJson<Created>('mcp', 'create-token', '--project', p.project.id, '--name', 'a');
    const b = await cliJson<Created>('mcp', 'create-token', '--project', p.project.id, '--name', 'b');
    await cliJson('mcp', 'revoke-token', '--project', p.project.id, '--id', String(a.id));
    expect((await ping(b.path)).statusCode).toBe(200);

    const listed = await cliJson<Listed[]>('mcp', 'list-tokens', '--project', p.project.id);
    const text = await cli('mcp', 'list-tokens', '--project', p.project.id);

    expect(listed).toEqual([
      { id: b.id, name: 'b', prefix: b.prefix, created_at: b.created_at, last_used_at: expect.any(String) },
    ]);
    for (const out of [JSON.stringify(listed), text.out]) {
      expect(out).not.toContain(b.path.slice('/mcp/mcp_'.length));
      expect(out).not.toContain(a.path.slice('/mcp/mcp_'.length));
    }
    expect(text.out).toContain('last_used_at');
  });
});

describe('mcp revoke-token', () => {
  it('when a token is revoked, then its URL answers 401 from the next request on', async () => {
    const p = await newProject(h().deps);
    const t = await cliJson<Created>('mcp', 'create-token', '--project', p.project.id);
    expect((await ping(t.path)).statusCode).toBe(200);

    const revoked = await cliJson<Listed & { revoked: boolean }>(
      'mcp',
      'revoke-token',
      '--project',
      p.project.id,
      '--id',
      String(t.id),
    );
    const after = await ping(t.path);

    expect(revoked).toMatchObject({ id: t.id, revoked: true });
    expect(after.statusCode).toBe(401);
    expect(after.json()).toEqual({ msg: 'MCP token invalid or revoked.', status: 401 });
  });

  it('when the id is not a live token of that project (or not an id), then exit 2 and nothing changes', async () => {
    const p = await newProject(h().deps);
    const q = await newProject(h().deps);
    const other = await cliJson<Created>('mcp', 'create-token', '--project', q.project.id);

    const foreign = await cli('mcp', 'revoke-token', '--project', p.project.id, '--id', String(other.id));
    const junk = await cli('mcp', 'revoke-token', '--project', p.project.id, '--id', 'abc');

    expect(foreign).toMatchObject({ code: 2, err: expect.stringContaining(`MCP token ${other.id} not found`) });
    expect(junk).toMatchObject({ code: 2, err: expect.stringContaining("--id 'abc'") });
    expect((await ping(other.path)).statusCode).toBe(200);
  });
});
