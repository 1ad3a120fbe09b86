// Conventions every route shares (spec: Errors; catalog 4c bodies, sizes, nesting, __proto__; D10):
// unknown routes, unreadable bodies, sizes, prototype poisoning, deep nesting, 500s without
// internals, no x-powered-by or CORS, and the envelope's status always equal to the HTTP status.
import { Writable } from 'node:stream';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import type { Deps } from '../../src/deps.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { memoryRateLimitStore } from '../../src/store/redis/rate-limit-store.ts';
import { newProject, useHarness } from '../support/harness.ts';

const h = useHarness();

const NOT_FOUND = { msg: 'Route not found.', status: 404 };
const INVALID_JSON = { msg: 'Invalid JSON body.', status: 400 };
const NOT_OBJECT = { msg: 'Request body must be a JSON object.', status: 400 };
const NAME_REQUIRED = { msg: 'Campaign name is required!', status: 400 };
const INTERNAL = { msg: 'Internal server error', status: 500 };

async function postCreate(body: string, contentType = 'application/json') {
  const { app, deps } = h();
  const p = await newProject(deps);
  return app.inject({
    method: 'POST',
    url: '/api/v1/create-campaign',
    headers: { ...p.headers, 'content-type': contentType },
    payload: body,
  });
}

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('404', () => {
  it.each<[string, InjectOptions]>([
    ['an unknown /api/v1 path', { method: 'GET', url: '/api/v1/no-such-route' }],
    [
      'an unknown /api/v1 path with a valid-looking key',
      { method: 'GET', url: '/api/v1/users', headers: { 'service-key': 'sk_x' } },
    ],
    ['a known path with an unserved method', { method: 'POST', url: '/api/v1/campaigns' }],
    ['GET on the POST-only create-campaign', { method: 'GET', url: '/api/v1/create-campaign' }],
    ['a deep unknown path', { method: 'GET', url: '/a/b/c/d' }],
    ['a POST to an unknown root path', { method: 'POST', url: '/no-such-route', payload: {} }],
    ['an unknown version prefix', { method: 'GET', url: '/api/v2/campaigns' }],
  ])('when the request is %s, then 404 JSON Route not found.', async (_case, req) => {
    const res = await h().app.inject(req);
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.json()).toEqual(NOT_FOUND);
  });
});

describe('400 unreadable bodies', () => {
  it.each([
    ['truncated JSON', '{"name":'],
    ['not JSON at all', 'name=x'],
    ['a trailing comma', '{"name":"x",}'],
    ['single quotes', "{'name':'x'}"],
    ['only whitespace', ' \n'],
    ['a __proto__ key', '{"__proto__":{"x":1}}'],
    ['a __proto__ key next to a valid name', '{"name":"x","__proto__":{"isAdmin":true}}'],
    ['a constructor.prototype key', '{"constructor":{"prototype":{}}}'],
    ['a __proto__ key 10k levels down', `${'{"a":'.repeat(10_000)}{"__proto__":{}}${'}'.repeat(10_000)}`],
    [
      'a constructor.prototype key 10k levels down',
      `${'{"a":'.repeat(10_000)}{"constructor":{"prototype":{}}}${'}'.repeat(10_000)}`,
    ],
  ])('when the JSON body is %s, then 400 Invalid JSON body.', async (_case, body) => {
    const res = await postCreate(body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(INVALID_JSON);
  });

  it('when a __proto__ key is refused, then Object.prototype is not polluted', async () => {
    await postCreate('{"__proto__":{"polluted":"yes"}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ['10k nested arrays', nested(10_000), NOT_OBJECT],
    ['100k nested arrays', nested(100_000), NOT_OBJECT],
    ['a name of 10k nested objects', `{"name":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`, NAME_REQUIRED],
    ['a name of 100k nested arrays', `{"name":${nested(100_000)}}`, NAME_REQUIRED],
    ['an empty body (no body: many clients send the JSON type on every request)', '', NAME_REQUIRED],
    ['top-level null', 'null', NAME_REQUIRED],
    ['a top-level array', '[]', NOT_OBJECT],
    ['a top-level string', '"s"', NOT_OBJECT],
    ['a top-level number', '1', NOT_OBJECT],
  ])('when the body is %s, then 400 (never 500) with the route text', async (_case, body, expected) => {
    const res = await postCreate(body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(expected);
  });

  it('when PATCH gets active as 10k nested objects, then 400 Active field must be a boolean!', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const res = await app.inject({
      method: 'PATCH',
      url: '/api/v1/campaigns/any-id',
      headers: { ...p.headers, 'content-type': 'application/json' },
      payload: `{"active":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ msg: 'Active field must be a boolean!', status: 400 });
  });
});

describe('413', () => {
  it('when the body is one byte over BODY_LIMIT_V1_BYTES, then 413 Request body too large.', async () => {
    const limit = h().deps.config.bodyLimitV1;
    const body = `{"name":"${'x'.repeat(limit - 10)}"}`;
    expect(Buffer.byteLength(body)).toBe(limit + 1);

    const res = await postCreate(body);

    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ msg: 'Request body too large.', status: 413 });
  });

  it('when the body is exactly BODY_LIMIT_V1_BYTES, then it is read and the route answers', async () => {
    const limit = h().deps.config.bodyLimitV1;
    const body = `{"name":"${'x'.repeat(limit - 11)}"}`;
    expect(Buffer.byteLength(body)).toBe(limit);

    const res = await postCreate(body);

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ msg: 'Campaign name must be at most 500 characters!', status: 400 });
  });

  it('when the default limit applies, then it is 256 KiB', () => {
    expect(h().deps.config.bodyLimitV1).toBe(256 * 1024);
  });
});

describe('415', () => {
  it.each([
    ['text/plain', 'text/plain'],
    ['text/plain with a charset', 'text/plain; charset=utf-8'],
    ['form-encoded', 'application/x-www-form-urlencoded'],
    ['multipart', 'multipart/form-data; boundary=x'],
    ['XML', 'application/xml'],
  ])('when the body is sent as %s, then 415', async (_case, contentType) => {
    const res = await postCreate('{"name":"X"}', contentType);
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({ msg: 'Unsupported content type. Send application/json.', status: 415 });
  });

  it('when the body has no content type, then 415', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/create-campaign',
      headers: p.headers,
      payload: Buffer.from('{"name":"X"}'),
    });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({ msg: 'Unsupported content type. Send application/json.', status: 415 });
  });

  it('when the content type is application/json with a charset, then the body is read', async () => {
    const res = await postCreate('{"name":"Charset"}', 'application/json; charset=utf-8');
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ msg: 'Campaign created successfully!', status: 201 });
  });
});

describe('headers (D10)', () => {
  it.each<[string, InjectOptions]>([
    ['a success', { method: 'GET', url: '/healthz' }],
    ['a 401', { method: 'GET', url: '/api/v1/campaigns' }],
    ['a 404', { method: 'GET', url: '/api/v1/nope' }],
    [
      'a 400',
      { method: 'POST', url: '/api/v1/create-campaign', headers: { 'content-type': 'application/json' }, payload: '{' },
    ],
  ])('when the answer is %s, then there is no x-powered-by header', async (_case, req) => {
    const res = await h().app.inject(req);
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('when a browser sends a CORS preflight to /api/v1, then no CORS header allows it', async () => {
    const res = await h().app.inject({
      method: 'OPTIONS',
      url: '/api/v1/campaigns',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
    });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual(NOT_FOUND);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('when a cross-origin GET carries the key, then the answer has no access-control-allow-origin', async () => {
    const p = await newProject(h().deps);
    const res = await h().app.inject({
      method: 'GET',
      url: '/api/v1/campaigns',
      headers: { ...p.headers, origin: 'https://evil.example' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});

/** An app over the harness stores with test-only routes that throw, a log capture, and its own
 * rate-limit counters with a frozen clock (every request in one window) and a data limit of 1. */
async function appWithThrowingRoutes(): Promise<{ app: FastifyInstance; log: () => string }> {
  const base = h().deps;
  let out = '';
  const deps: Deps = {
    ...base,
    log: createLogger(
      'error',
      new Writable({
        write(chunk, _enc, done) {
          out += String(chunk);
          done();
        },
      }),
    ),
    config: { ...base.config, rateLimits: { ...base.config.rateLimits, dataPerSecond: 1 } },
    rateLimits: memoryRateLimitStore(),
    now: () => 1_000_000,
  };
  const app = await buildApp(deps);
  app.get('/test/throws-error', async () => {
    throw new Error('secret detail: password=hunter2 at /srv/app/src/x.ts:1');
  });
  app.get('/test/throws-string', async () => {
    throw 'a thrown string with a secret';
  });
  app.get('/test/throws-type-error', async () => {
    const missing = undefined as unknown as { deep: { field: string } };
    return missing.deep.field;
  });
  app.get('/test/throws-status-error', async () => {
    throw Object.assign(new Error('upstream said 503 with secret'), { statusCode: 503 });
  });
  await app.ready();
  return { app, log: () => out };
}

describe('500', () => {
  let t: { app: FastifyInstance; log: () => string } | undefined;
  const app = () => {
    if (!t) {
      throw new Error('app not ready');
    }
    return t.app;
  };
  beforeAll(async () => {
    t = await appWithThrowingRoutes();
  });
  afterAll(async () => {
    await t?.app.close();
  });

  it.each(['/test/throws-error', '/test/throws-string', '/test/throws-type-error', '/test/throws-status-error'])(
    'when %s runs, then 500 Internal server error with no internals in the body',
    async (url) => {
      const res = await app().inject({ method: 'GET', url });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual(INTERNAL);
      expect(res.body).not.toMatch(/secret|hunter2|stack|\bat \/|\.ts:\d|TypeError/);
    },
  );

  it('when a route throws, then the error is logged with the request id', async () => {
    const res = await app().inject({ method: 'GET', url: '/test/throws-error' });
    expect(res.statusCode).toBe(500);
    const line = t
      ?.log()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { msg: string; reqId: string; err?: { message: string } })
      .find((l) => l.msg === 'unhandled error' && l.err?.message.startsWith('secret detail'));
    expect(line).toMatchObject({ msg: 'unhandled error', reqId: expect.any(String) });
  });
});

describe('the envelope status always equals the HTTP status', () => {
  let t: { app: FastifyInstance; log: () => string } | undefined;
  beforeAll(async () => {
    t = await appWithThrowingRoutes();
  });
  afterAll(async () => {
    await t?.app.close();
  });

  it('when answers range over 200 to 500, then each body status equals the HTTP status', async () => {
    const app = t?.app as FastifyInstance;
    const [a, b, c, d] = await Promise.all([1, 2, 3, 4].map(() => newProject(h().deps)));
    if (!a || !b || !c || !d) {
      throw new Error('projects not created');
    }
    const json = { 'content-type': 'application/json' };
    const requests: InjectOptions[] = [
      { method: 'GET', url: '/api/v1/campaigns', headers: a.headers },
      { method: 'POST', url: '/api/v1/create-campaign', headers: b.headers, payload: { name: 'Envelope' } },
      { method: 'POST', url: '/api/v1/create-campaign', headers: { ...b.headers, ...json }, payload: '{' },
      { method: 'POST', url: '/api/v1/create-campaign', headers: b.headers, payload: {} },
      { method: 'GET', url: '/api/v1/campaigns' },
      { method: 'PATCH', url: '/api/v1/campaigns/x', headers: { 'service-key': 'sk_nope' }, payload: { name: 'x' } },
      { method: 'GET', url: '/api/v1/nope' },
      { method: 'PATCH', url: '/api/v1/campaigns/no-such-id', headers: c.headers, payload: { name: 'x' } },
      {
        method: 'POST',
        url: '/api/v1/create-campaign',
        headers: { ...c.headers, ...json },
        payload: 'x'.repeat(300_000),
      },
      {
        method: 'POST',
        url: '/api/v1/create-campaign',
        headers: { ...c.headers, 'content-type': 'text/plain' },
        payload: 'x',
      },
      { method: 'GET', url: '/api/v1/campaigns?page=0', headers: d.headers },
      { method: 'GET', url: '/api/v1/campaigns', headers: a.headers },
      { method: 'GET', url: '/test/throws-error' },
    ];

    const seen: number[] = [];
    for (const req of requests) {
      const res = await app.inject(req);
      seen.push(res.statusCode);
      expect(res.json().status, `${req.method} ${req.url}`).toBe(res.statusCode);
    }

    expect(seen).toEqual([200, 201, 400, 400, 401, 401, 404, 404, 413, 415, 422, 429, 500]);
  });
});
