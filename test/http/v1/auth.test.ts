// The /api/v1 auth matrix (catalog D1, D2, D3) on every /api/v1 route: where the key may and may not
// come from, each route's exact 401 texts, rotated keys, the project token refused as a key, keys
// stored only as sha256, and keys never written to the logs.
import { createHash, randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.ts';
import { rotateServerKey } from '../../../src/domain/projects/rotate-server-key.ts';
import { createLogger } from '../../../src/lib/logger.ts';
import * as factories from '../../support/factories.ts';
import { newProject, type TestProject, useHarness } from '../../support/harness.ts';
import { listenOnLoopback, rawExchange, rawRequest } from '../../support/raw-http.ts';

const h = useHarness();

const UNAUTHORIZED = { msg: 'Unauthorized access.', status: 401 };
const KEY_MISSING = { msg: 'Server key missing!', status: 401 };
const KEY_INVALID = { msg: 'Server key invalid!', status: 401 };

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
type Target = { url: string; payload?: Record<string, unknown> };

type Route = {
  name: string;
  method: Method;
  missing: typeof UNAUTHORIZED;
  invalid: typeof UNAUTHORIZED;
  /** Where a request that must fail before the route runs goes (no campaign needed). */
  unauth: Target;
  /** Where an authenticated request goes (a campaign of the project when the route needs one). */
  target: (app: FastifyInstance, p: TestProject) => Promise<Target>;
  /** The route's own success, proving the key got through. */
  expectAccepted: (res: LightMyRequestResponse) => void;
};

const withCampaign = (payload?: Record<string, unknown>) => async (app: FastifyInstance, p: TestProject) => {
  const c = await factories.campaign(app, p, { name: 'Auth target' });
  return { url: `/api/v1/campaigns/${c.display_id}`, payload };
};

const expectUpdated = (res: LightMyRequestResponse) => {
  expect(res.statusCode).toBe(200);
  expect(res.json()).toMatchObject({ msg: 'Campaign updated successfully!', status: 200, data: { name: 'Renamed' } });
};

const ROUTES: Route[] = [
  {
    name: 'GET /api/v1/campaigns',
    method: 'GET',
    unauth: { url: '/api/v1/campaigns' },
    missing: UNAUTHORIZED,
    invalid: UNAUTHORIZED,
    target: async () => ({ url: '/api/v1/campaigns' }),
    expectAccepted: (res) => {
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        msg: 'Successfully retrieved 0 campaigns (all campaigns). Showing page 1 of 0.',
        status: 200,
        data: { total_campaigns: 0, campaigns: [], pagination: { total: 0, pages: 0, page: 1, limit: 100 } },
      });
    },
  },
  {
    name: 'GET /api/v1/get-attribution-result',
    method: 'GET',
    unauth: { url: '/api/v1/get-attribution-result?user_id=u' },
    missing: UNAUTHORIZED,
    invalid: UNAUTHORIZED,
    target: async () => ({ url: '/api/v1/get-attribution-result?user_id=no-such-user' }),
    expectAccepted: (res) => {
      expect(res.statusCode).toBe(204);
      expect(res.body).toBe('');
    },
  },
  {
    name: 'POST /api/v1/create-campaign',
    method: 'POST',
    unauth: { url: '/api/v1/create-campaign', payload: { name: 'x' } },
    missing: KEY_MISSING,
    invalid: KEY_INVALID,
    target: async () => ({ url: '/api/v1/create-campaign', payload: { name: 'Auth campaign' } }),
    expectAccepted: (res) => {
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ msg: 'Campaign created successfully!', status: 201 });
    },
  },
  {
    name: 'PATCH /api/v1/campaigns/:display_id',
    method: 'PATCH',
    unauth: { url: '/api/v1/campaigns/any-id', payload: { name: 'x' } },
    missing: KEY_MISSING,
    invalid: KEY_INVALID,
    target: withCampaign({ name: 'Renamed' }),
    expectAccepted: expectUpdated,
  },
  {
    name: 'PUT /api/v1/campaigns/:display_id',
    method: 'PUT',
    unauth: { url: '/api/v1/campaigns/any-id', payload: { name: 'x' } },
    missing: KEY_MISSING,
    invalid: KEY_INVALID,
    target: withCampaign({ name: 'Renamed' }),
    expectAccepted: expectUpdated,
  },
  {
    name: 'DELETE /api/v1/campaigns/:display_id',
    method: 'DELETE',
    unauth: { url: '/api/v1/campaigns/any-id' },
    missing: KEY_MISSING,
    invalid: KEY_INVALID,
    target: withCampaign(),
    expectAccepted: (res) => {
      expect(res.statusCode).toBe(204);
      expect(res.body).toBe('');
    },
  },
];

/** `query` is extra query parameters, without the leading ? or &. */
function send(route: Route, target: Target, headers: InjectOptions['headers'] = {}, query = '') {
  const sep = target.url.includes('?') ? '&' : '?';
  return h().app.inject({
    method: route.method,
    url: query ? `${target.url}${sep}${query}` : target.url,
    headers,
    ...(target.payload ? { payload: target.payload } : {}),
  });
}

describe.each(ROUTES)('$name', (route) => {
  describe('401', () => {
    it('when the service-key header is missing, then 401 with the missing-key text', async () => {
      const res = await send(route, route.unauth);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual(route.missing);
    });

    it('when the service-key header is empty, then 401 with the missing-key text', async () => {
      const res = await send(route, route.unauth, { 'service-key': '' });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual(route.missing);
    });

    it('when the service-key header is only whitespace, then 401 with the missing-key text', async () => {
      const res = await send(route, route.unauth, { 'service-key': ' \t  ' });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual(route.missing);
    });

    it('when a valid key is sent only in the query string, then it is ignored: 401 missing', async () => {
      const p = await newProject(h().deps);
      const key = encodeURIComponent(p.serverKey);
      const res = await send(route, route.unauth, {}, `service-key=${key}&service_key=${key}`);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual(route.missing);
    });

    it('when the key is unknown, then 401 with the invalid-key text', async () => {
      const res = await send(route, route.unauth, {
        'service-key': `sk_${randomBytes(32).toString('base64url')}`,
      });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual(route.invalid);
    });

    it('when the key differs from a valid key only in letter case, then 401 with the invalid-key text', async () => {
      const p = await newProject(h().deps);
      const res = await send(route, route.unauth, { 'service-key': p.serverKey.toUpperCase() });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual(route.invalid);
    });

    it('when the key is over 256 characters, then 401 with the invalid-key text', async () => {
      const res = await send(route, route.unauth, { 'service-key': `sk_${'a'.repeat(300)}` });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual(route.invalid);
    });

    it('when the project token is sent as the key, then 401 with the invalid-key text (D2)', async () => {
      const p = await newProject(h().deps);
      const res = await send(route, route.unauth, { 'service-key': p.token });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual(route.invalid);
    });

    it('when the key was rotated away, then the old key gets 401 invalid and the new key is accepted', async () => {
      const { app, deps } = h();
      const p = await newProject(deps);
      const target = await route.target(app, p);
      const { serverKey, revoked } = await rotateServerKey(deps, p.project.id);
      expect(revoked).toBe(1);

      const old = await send(route, target, { 'service-key': p.serverKey });
      const fresh = await send(route, target, { 'service-key': serverKey });

      expect(old.statusCode).toBe(401);
      expect(old.json()).toEqual(route.invalid);
      route.expectAccepted(fresh);
    });
  });

  describe('accepted', () => {
    it('when the service-key header holds the key, then the route answers', async () => {
      const p = await newProject(h().deps);
      route.expectAccepted(await send(route, await route.target(h().app, p), p.headers));
    });

    it('when spaces surround the key, then it is accepted', async () => {
      const p = await newProject(h().deps);
      const res = await send(route, await route.target(h().app, p), { 'service-key': `  ${p.serverKey} ` });
      route.expectAccepted(res);
    });

    it('when the header is written Service-Key, then it is accepted (header names ignore case)', async () => {
      const p = await newProject(h().deps);
      const res = await send(route, await route.target(h().app, p), { 'Service-Key': p.serverKey });
      route.expectAccepted(res);
    });

    it('when the key comes in the linkrunner-key header, then it is accepted', async () => {
      const p = await newProject(h().deps);
      const res = await send(route, await route.target(h().app, p), { 'linkrunner-key': p.serverKey });
      route.expectAccepted(res);
    });
  });
});

describe('two service-key headers in one request (raw socket)', () => {
  let listener: FastifyInstance | undefined;
  let port = 0;
  beforeAll(async () => {
    listener = await buildApp(h().deps);
    port = await listenOnLoopback(listener);
  });
  afterAll(async () => {
    await listener?.close();
  });

  it.each(ROUTES)(
    'when $name gets the valid key twice, then Node joins them and it answers 401 invalid',
    async (route) => {
      const p = await newProject(h().deps);
      const target = route.unauth;
      const body = target.payload ? JSON.stringify(target.payload) : '';
      const twice: [string, string][] = [
        ['service-key', p.serverKey],
        ['service-key', p.serverKey],
      ];
      const request = rawRequest(route.method, target.url, twice, body);

      const res = await rawExchange(port, request);

      expect(res.statusCode).toBe(401);
      expect(JSON.parse(res.body)).toEqual(route.invalid);
    },
  );
});

describe('key storage (D3)', () => {
  it('when a project is created, then no column of any table holds the raw key', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const secret = p.serverKey.slice(3); // the random part, without the sk_ prefix
    const tables = await deps.sql<{ table_name: string }[]>`
      SELECT table_name FROM information_schema.tables
      WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`;
    expect(tables.map((t) => t.table_name)).toEqual(expect.arrayContaining(['projects', 'server_keys']));

    const hits: string[] = [];
    for (const { table_name } of tables) {
      const [row] = await deps.sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM ${deps.sql(table_name)} t
        WHERE strpos(t::text, ${secret}) > 0
           OR strpos(t::text, ${Buffer.from(p.serverKey).toString('hex')}) > 0`;
      if (row && row.n > 0) {
        hits.push(table_name);
      }
    }

    expect(hits).toEqual([]);
  });

  it('when a project is created, then its one key row holds sha256(key) and a short prefix', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const rows = await deps.sql<{ hash: string; key_prefix: string; revoked_at: Date | null }[]>`
      SELECT encode(key_hash, 'hex') AS hash, key_prefix, revoked_at FROM server_keys
      WHERE project_id = ${p.project.id}`;
    expect(rows).toEqual([
      {
        hash: createHash('sha256').update(p.serverKey).digest('hex'),
        key_prefix: p.serverKey.slice(0, 7),
        revoked_at: null,
      },
    ]);
  });

  it('when the key is rotated, then the old row is revoked and the new row holds sha256 of the new key', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const { serverKey } = await rotateServerKey(deps, p.project.id);
    const rows = await deps.sql<{ hash: string; revoked: boolean }[]>`
      SELECT encode(key_hash, 'hex') AS hash, revoked_at IS NOT NULL AS revoked FROM server_keys
      WHERE project_id = ${p.project.id} ORDER BY id`;
    const sha = (k: string) => createHash('sha256').update(k).digest('hex');
    expect(rows).toEqual([
      { hash: sha(p.serverKey), revoked: true },
      { hash: sha(serverKey), revoked: false },
    ]);
  });
});

describe('logs', () => {
  it('when requests carry the key in headers or by mistake in the query string, then no log line holds it', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    let out = '';
    const log = createLogger(
      'trace',
      new Writable({
        write(chunk, _enc, done) {
          out += String(chunk);
          done();
        },
      }),
    );
    const app = await buildApp({ ...deps, log });
    try {
      await app.inject({ method: 'GET', url: '/api/v1/campaigns', headers: p.headers });
      await app.inject({ method: 'GET', url: `/api/v1/campaigns?service-key=${p.serverKey}` });
      await app.inject({ method: 'POST', url: '/api/v1/create-campaign', headers: { 'linkrunner-key': p.serverKey } });
      await app.inject({
        method: 'POST',
        url: '/api/v1/create-campaign',
        headers: { ...p.headers, 'content-type': 'application/json' },
        payload: `{"token":"${p.token}",`,
      });
    } finally {
      await app.close();
    }

    expect(out).toContain('incoming request');
    expect(out).not.toContain(p.serverKey.slice(3));
    expect(out).not.toContain(p.token.slice(3));
  });
});
