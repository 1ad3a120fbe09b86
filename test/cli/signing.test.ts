// CLI for SDK signing keys and enforcement (real-clients §2), run in-process with runCli against the
// test Postgres. Issue: keys are per project and platform, the secret is printed once and never
// listed, revoked keys stop verifying, enforcement is off by default.
import { createHash, createHmac } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.ts';
import { testEnv, useHarness } from '../support/harness.ts';

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
  expect(r.out.split('\n')).toHaveLength(1);
  return JSON.parse(r.out) as T;
}

type CreatedKey = {
  project_id: string;
  key_id: string;
  secret_key: string;
  platform: string;
  active: boolean;
  created_at: string;
};
type ListedKey = Omit<CreatedKey, 'project_id' | 'secret_key'>;

let counter = 0;
const newCliProject = () =>
  cliJson<{ id: string; token: string }>('projects', 'create', '--name', `signing ${process.pid}-${++counter}`);
const createKey = (projectId: string, platform: string) =>
  cliJson<CreatedKey>('signing-keys', 'create', '--project', projectId, '--platform', platform);
const MISSING_PROJECT = '00000000-0000-4000-8000-000000000000';

describe('signing-keys create', () => {
  it('when --json, then it prints the key id and secret once, and stores the key active for that platform', async () => {
    const p = await newCliProject();

    const k = await createKey(p.id, 'IOS');

    expect(k).toMatchObject({ project_id: p.id, platform: 'IOS', active: true });
    expect(k.key_id).toMatch(/^lrk_[A-Za-z0-9]{16}$/);
    expect(k.secret_key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const rows = await h().deps.sql<{ key_id: string; secret: string; platform: string; active: boolean }[]>`
      SELECT key_id, secret, platform, active FROM sdk_signing_keys WHERE project_id = ${p.id}`;
    expect(rows).toEqual([{ key_id: k.key_id, secret: k.secret_key, platform: 'IOS', active: true }]);
  });

  it('when the platform is lower-case, then it is stored upper-cased, and each key is distinct', async () => {
    const p = await newCliProject();

    const a = await createKey(p.id, 'android');
    const b = await createKey(p.id, 'ANDROID');

    expect(a.platform).toBe('ANDROID');
    expect(a.key_id).not.toBe(b.key_id);
    expect(a.secret_key).not.toBe(b.secret_key);
  });

  it('when run without --json, then it prints the key id and the secret with a shown-once warning', async () => {
    const p = await newCliProject();

    const r = await cli('signing-keys', 'create', '--project', p.id, '--platform', 'IOS');

    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/key id: +lrk_\S+/);
    expect(r.out).toMatch(/secret key: +\S{43}/);
    expect(r.out).toContain('shown only now');
  });

  it('when the platform is not IOS or ANDROID, then it exits 2 naming --platform and stores nothing', async () => {
    const p = await newCliProject();

    const r = await cli('signing-keys', 'create', '--project', p.id, '--platform', 'WEB', '--json');

    expect(r.code).toBe(2);
    expect(r.err).toContain('--platform');
    expect(r.out).toBe('');
    const [row] = await h().deps.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM sdk_signing_keys WHERE project_id = ${p.id}`;
    expect(row?.n).toBe(0);
  });

  it('when the project does not exist, then it exits 2 saying so', async () => {
    const r = await cli('signing-keys', 'create', '--project', MISSING_PROJECT, '--platform', 'IOS');

    expect(r.code).toBe(2);
    expect(r.err).toContain(`project '${MISSING_PROJECT}' not found`);
  });

  it('when a key made by the CLI signs a client request, then the API accepts it', async () => {
    const p = await newCliProject();
    const k = await createKey(p.id, 'IOS');
    await cliJson('projects', 'set-signing', '--project', p.id, '--enforce', 'true');
    const body = `{"token":"${p.token}","platform":"IOS","install_instance_id":"AbCdEfGhIjKlMnOpQrSt"}`;
    const ts = String(Date.now());
    const hash = createHash('sha256').update(body).digest('base64');
    const signature = createHmac('sha256', k.secret_key).update(`${ts}\n${hash}`).digest('base64');

    const res = await h().app.inject({
      method: 'POST',
      url: '/api/client/init',
      headers: {
        'content-type': 'application/json',
        authorization: 'HMAC',
        'x-key-id': k.key_id,
        'x-timestamp': ts,
        'x-signature': signature,
      },
      payload: body,
    });

    expect(res.statusCode).toBe(202);
  });
});

describe('signing-keys list', () => {
  it('when --json, then it lists every key of the project with its platform and state, never a secret', async () => {
    const p = await newCliProject();
    const ios = await createKey(p.id, 'IOS');
    const android = await createKey(p.id, 'ANDROID');
    const other = await newCliProject();
    await createKey(other.id, 'IOS');

    const r = await cli('signing-keys', 'list', '--project', p.id, '--json');

    expect(r.code, r.err).toBe(0);
    const list = JSON.parse(r.out) as ListedKey[];
    expect(list.map((k) => [k.key_id, k.platform, k.active])).toEqual([
      [ios.key_id, 'IOS', true],
      [android.key_id, 'ANDROID', true],
    ]);
    expect(Object.keys(list[0] ?? {}).sort()).toEqual(['active', 'created_at', 'key_id', 'platform']);
    expect(r.out).not.toContain(ios.secret_key);
    expect(r.out).not.toContain(android.secret_key);
  });

  it('when run without --json, then it prints a table without secrets', async () => {
    const p = await newCliProject();
    const k = await createKey(p.id, 'ANDROID');

    const r = await cli('signing-keys', 'list', '--project', p.id);

    expect(r.code, r.err).toBe(0);
    expect(r.out.split('\n')[0]).toMatch(/^key_id +platform +active +created_at$/);
    expect(r.out).toContain(k.key_id);
    expect(r.out).not.toContain(k.secret_key);
  });

  it('when the project has no keys, then it prints (none)', async () => {
    const p = await newCliProject();

    const r = await cli('signing-keys', 'list', '--project', p.id);

    expect(r.out).toBe('(none)');
  });

  it('when the project does not exist, then it exits 2', async () => {
    const r = await cli('signing-keys', 'list', '--project', MISSING_PROJECT);

    expect(r.code).toBe(2);
  });
});

describe('signing-keys revoke', () => {
  it('when a key is revoked, then it is listed inactive and the other keys stay active', async () => {
    const p = await newCliProject();
    const ios = await createKey(p.id, 'IOS');
    const android = await createKey(p.id, 'ANDROID');

    const revoked = await cliJson<ListedKey>('signing-keys', 'revoke', '--project', p.id, '--key-id', ios.key_id);

    expect(revoked).toMatchObject({ key_id: ios.key_id, platform: 'IOS', active: false });
    const list = await cliJson<ListedKey[]>('signing-keys', 'list', '--project', p.id);
    expect(list.map((k) => [k.key_id, k.active])).toEqual([
      [ios.key_id, false],
      [android.key_id, true],
    ]);
  });

  it("when the key id belongs to another project, then it exits 2 and that project's key stays active", async () => {
    const p = await newCliProject();
    const other = await newCliProject();
    const k = await createKey(other.id, 'IOS');

    const r = await cli('signing-keys', 'revoke', '--project', p.id, '--key-id', k.key_id);

    expect(r.code).toBe(2);
    expect(r.err).toContain(`signing key '${k.key_id}' not found`);
    const list = await cliJson<ListedKey[]>('signing-keys', 'list', '--project', other.id);
    expect(list[0]?.active).toBe(true);
  });

  it('when --key-id is missing, then it exits 2 naming the flag', async () => {
    const p = await newCliProject();

    const r = await cli('signing-keys', 'revoke', '--project', p.id);

    expect(r.code).toBe(2);
    expect(r.err).toContain('--key-id is required');
  });
});

describe('projects set-signing', () => {
  const enforced = async (projectId: string) => {
    const [row] = await h().deps.sql<{ enforce_sdk_signing: boolean }[]>`
      SELECT enforce_sdk_signing FROM projects WHERE id = ${projectId}`;
    return row?.enforce_sdk_signing;
  };

  it('when a project is created, then signing is not enforced', async () => {
    const p = await newCliProject();

    expect(await enforced(p.id)).toBe(false);
  });

  it('when set to true and back to false, then the project flag follows, with the active key count', async () => {
    const p = await newCliProject();
    await createKey(p.id, 'IOS');

    const on = await cliJson('projects', 'set-signing', '--project', p.id, '--enforce', 'true');
    const onStored = await enforced(p.id);
    const off = await cliJson('projects', 'set-signing', '--project', p.id, '--enforce', 'false');

    expect(on).toEqual({ project_id: p.id, enforce_sdk_signing: true, active_keys: 1 });
    expect(onStored).toBe(true);
    expect(off).toEqual({ project_id: p.id, enforce_sdk_signing: false, active_keys: 1 });
    expect(await enforced(p.id)).toBe(false);
  });

  it('when enforcing with no active key, then a warning on stderr says every SDK request will be refused', async () => {
    const p = await newCliProject();

    const r = await cli('projects', 'set-signing', '--project', p.id, '--enforce', 'true');

    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe('SDK signing enforced (0 active key(s))');
    expect(r.err).toBe('warning: no active signing key; every SDK request is refused (see: signing-keys create)');
  });

  it.each(['yes', '1', ''])('when --enforce is %j, then it exits 2 and the flag is unchanged', async (value) => {
    const p = await newCliProject();

    const r = await cli('projects', 'set-signing', '--project', p.id, '--enforce', value);

    expect(r.code).toBe(2);
    expect(r.err).toContain('--enforce');
    expect(await enforced(p.id)).toBe(false);
  });
});
