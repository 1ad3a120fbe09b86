// /openapi.json against what the app really does: every registered route is an operation (HEAD of
// the links included), both server-key headers are security schemes, and every status a route
// answers (body refusals, a store down, an unexpected failure) is documented with the schema its
// body validates against (ajv). Answers of the success paths: openapi-answers.test.ts.
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { Deps } from '../../src/deps.ts';
import type { ClickHouseClient } from '../../src/store/clickhouse/client.ts';
import { createPool } from '../../src/store/postgres/pool.ts';
import { newProject, useHarness, withAppOver } from '../support/harness.ts';
import { answerProblems, fetchDoc, type OpenApiDoc, operation, operations, validate } from '../support/openapi.ts';
import { freePort } from '../support/processes.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

const openApiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}');
const urlOf = (path: string) => path.replace(/\{(\w+)\}/g, 'docs1');

/** buildApp over the harness stores with some replaced; closes the app afterwards. */
const withApp = <T>(replace: Partial<Deps>, run: (app: FastifyInstance) => Promise<T>) =>
  withAppOver(h(), replace, run);

describe('routes and operations', () => {
  it('when the app serves a route beside the main ones, then /openapi.json lists it', async () => {
    const doc = await fetchDoc(h().app);
    // Edit / delete without an id (they answer `Campaign display ID is required!`), the link with a
    // trailing slash, and Fastify's HEAD of the link routes (README "Link handler").
    const routes = [
      ...['PATCH', 'PUT', 'DELETE'].flatMap((m) => [
        [m, '/api/v1/campaigns'],
        [m, '/api/v1/campaigns/'],
      ]),
      ...['/', '/:display_id', '/:display_id/'].flatMap((u) => [
        ['GET', u],
        ['HEAD', u],
      ]),
    ] as ['GET', string][];

    expect(routes.filter(([method, url]) => !h().app.hasRoute({ method, url }))).toEqual([]);
    const missing = routes.filter(([m, u]) => !doc.paths[openApiPath(u)]?.[m.toLowerCase()]);
    expect(missing).toEqual([]);
  });

  it('when PATCH, PUT or DELETE names no display id, then the 400 it answers is the documented envelope', async () => {
    const doc = await fetchDoc(h().app);
    const p = await newProject(h().deps);
    for (const path of ['/api/v1/campaigns', '/api/v1/campaigns/']) {
      for (const method of ['PATCH', 'PUT', 'DELETE'] as const) {
        const res = await h().app.inject({ method, url: path, headers: p.headers, payload: { name: 'x' } });

        expect(res.json(), `${method} ${path}`).toEqual({ msg: 'Campaign display ID is required!', status: 400 });
        expect(answerProblems(doc, method, path, res)).toEqual([]);
      }
    }
  });

  it('when a link is requested with HEAD, then the answer is the documented status without a body', async () => {
    const doc = await fetchDoc(h().app);
    for (const [url, path] of [
      ['/?c=nothing1', '/'],
      ['/nothing1', '/{display_id}'],
      ['/nothing1/', '/{display_id}/'],
    ] as const) {
      const res = await h().app.inject({ method: 'HEAD', url });

      expect(res.statusCode, url).toBe(404);
      expect(res.body).toBe('');
      expect(Object.keys(operation(doc, 'HEAD', path).responses)).toContain('404');
    }
  });
});

describe('the document', () => {
  it('when built, then every schema compiles as JSON Schema 2020-12 and every path template has its path parameters', async () => {
    const doc = await fetchDoc(h().app);
    const broken: string[] = [];
    for (const [m, path, op] of operations(doc)) {
      const schemas = [
        ...op.parameters.map((q) => q.schema),
        ...Object.values(op.requestBody?.content ?? {}).map((c) => c.schema),
        ...Object.values(op.responses).flatMap((r) => Object.values(r.content ?? {}).map((c) => c.schema ?? {})),
      ];
      for (const schema of schemas) {
        try {
          validate(doc, schema, null);
        } catch (err) {
          broken.push(`${m} ${path}: ${String(err)}`);
        }
      }
      const templated = [...path.matchAll(/\{(\w+)\}/g)].map((x) => x[1]);
      const inPath = op.parameters.filter((q) => q.in === 'path' && q.required).map((q) => q.name);
      if (JSON.stringify(templated) !== JSON.stringify(inPath)) {
        broken.push(`${m} ${path}: path parameters ${inPath.join(',')}`);
      }
      if (Object.values(op.responses).some((r) => typeof r.description !== 'string')) {
        broken.push(`${m} ${path}: a response without description`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('security', () => {
  it('when the server key comes in `linkrunner-key` only, then 200 and every /api/v1 operation admits that header', async () => {
    const doc = await fetchDoc(h().app);
    const p = await newProject(h().deps);

    const res = await h().app.inject({
      method: 'GET',
      url: '/api/v1/campaigns',
      headers: { 'linkrunner-key': p.serverKey },
    });

    expect(res.statusCode).toBe(200);
    expect(doc.components.securitySchemes.linkrunnerKey).toEqual(
      expect.objectContaining({ type: 'apiKey', in: 'header', name: 'linkrunner-key' }),
    );
    const v1 = operations(doc).filter(([, path]) => path.startsWith('/api/v1/'));
    expect(v1.filter(([, , op]) => JSON.stringify(op.security) !== '[{"serviceKey":[]},{"linkrunnerKey":[]}]')).toEqual(
      [],
    );
  });
});

describe('schemas of the answers', () => {
  it('when an /api route documents an error status, then its body is the {msg, status} envelope', async () => {
    const doc = await fetchDoc(h().app);
    expect(doc.components.schemas.Error).toEqual({
      type: 'object',
      properties: {
        msg: expect.objectContaining({ type: 'string' }),
        status: expect.objectContaining({ type: 'integer' }),
      },
      required: ['msg', 'status'],
    });
    const bare = operations(doc)
      .filter(([, path]) => path.startsWith('/api/'))
      .flatMap(([m, path, op]) =>
        Object.entries(op.responses)
          .filter(([code, r]) => Number(code) >= 400 && !r.content?.['application/json']?.schema)
          .map(([code]) => `${m} ${path} ${code}`),
      );
    expect(bare).toEqual([]);
  });

  it('when an operation answers JSON with 2xx, then the status carries a content schema', async () => {
    const doc = await fetchDoc(h().app);
    const bare = operations(doc)
      .filter(([m, path]) => m !== 'HEAD' && !['/', '/{display_id}', '/{display_id}/', '/docs'].includes(path))
      .flatMap(([m, path, op]) =>
        Object.entries(op.responses)
          // A CSV download (GET /api/v1/audiences/export) is a file, not JSON.
          .filter(([code, r]) => /^2\d\d$/.test(code) && code !== '204' && !r.content?.['application/json']?.schema)
          .filter(([, r]) => !r.content?.['text/csv'])
          .map(([code]) => `${m} ${path} ${code}`),
      );
    expect(bare).toEqual([]);
  });

  it('when the spec lists 500 `Internal server error` for every route, then each /api operation documents 500 and 503', async () => {
    const doc = await fetchDoc(h().app);
    const missing = operations(doc)
      .filter(([, path]) => path.startsWith('/api/'))
      .filter(([, , op]) => !('500' in op.responses && '503' in op.responses))
      .map(([m, path]) => `${m} ${path}`);
    expect(missing).toEqual([]);
  });
});

/** Operations of the document whose path starts with `prefix`, with the method and a filled-in URL. */
const opsUnder = (doc: OpenApiDoc, prefix: string) =>
  operations(doc).filter(([m, path]) => path.startsWith(prefix) && m !== 'GET' && m !== 'HEAD');

describe('body refusals', () => {
  it('when an /api/v1 route with a body gets text/plain, then 415 as documented', async () => {
    const doc = await fetchDoc(h().app);
    const p = await newProject(h().deps);
    for (const [method, path] of opsUnder(doc, '/api/v1/')) {
      const res = await h().app.inject({
        method: method as 'POST',
        url: urlOf(path),
        headers: { ...p.headers, 'content-type': 'text/plain' },
        payload: 'hello',
      });

      expect(res.statusCode, `${method} ${path}`).toBe(415);
      expect(answerProblems(doc, method, path, res), `${method} ${path}`).toEqual([]);
    }
  });

  it('when an /api/v1 route gets a body over BODY_LIMIT_V1_BYTES, then 413 as documented', async () => {
    const doc = await fetchDoc(h().app);
    const p = await newProject(h().deps);
    const big = JSON.stringify({ name: 'x', pad: 'a'.repeat(300 * 1024) });
    // spend has its own 8 MiB limit, documented on its 413.
    for (const [method, path] of opsUnder(doc, '/api/v1/').filter(([, path]) => path !== '/api/v1/spend')) {
      const res = await h().app.inject({
        method: method as 'POST',
        url: urlOf(path),
        headers: { ...p.headers, 'content-type': 'application/json' },
        payload: big,
      });

      expect(res.statusCode, `${method} ${path}`).toBe(413);
      expect(answerProblems(doc, method, path, res), `${method} ${path}`).toEqual([]);
    }
  });

  it('when an /api/client route gets text/plain, then 415 as documented', async () => {
    const doc = await fetchDoc(h().app);
    for (const [method, path] of opsUnder(doc, '/api/client/')) {
      const res = await h().app.inject({
        method: 'POST',
        url: path,
        headers: { 'content-type': 'text/plain' },
        payload: 'x',
      });

      expect(res.statusCode, path).toBe(415);
      expect(answerProblems(doc, method, path, res), path).toEqual([]);
    }
  });
});

describe('stores that fail', () => {
  it('when Postgres is unreachable, then each family answers a documented 503 envelope', {
    timeout: 120_000,
  }, async () => {
    const doc = await fetchDoc(h().app);
    const p = await newProject(h().deps);
    const sql = createPool(`postgres://postgres@127.0.0.1:${await freePort()}/test`, 1);
    const sample: [method: 'GET' | 'POST', path: string, url: string, payload?: object][] = [
      ['GET', '/api/v1/campaigns', '/api/v1/campaigns'],
      ['POST', '/api/v1/create-campaign', '/api/v1/create-campaign', { name: 'n' }],
      ['GET', '/api/v1/skan/schema', '/api/v1/skan/schema'],
      [
        'POST',
        '/api/client/attribution-data',
        '/api/client/attribution-data',
        { token: p.token, install_instance_id: 'i1' },
      ],
      ['GET', '/', '/?c=docs1'],
      ['GET', '/{display_id}', '/docs1'],
      ['GET', '/.well-known/assetlinks.json', '/.well-known/assetlinks.json'],
    ];
    try {
      const answers = await withApp({ sql }, (app) =>
        Promise.all(
          sample.map(async ([method, path, url, payload]) => {
            const headers = path.startsWith('/api/v1/') ? p.headers : {};
            const res = await app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
            return {
              label: `${method} ${path}`,
              status: res.statusCode,
              problems: answerProblems(doc, method, path, res),
            };
          }),
        ),
      );

      expect(answers.filter((a) => a.status !== 503 || a.problems.length > 0)).toEqual([]);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it('when SECRETS_KEY is not set (service-mode Postgres), then PUT /api/v1/connections/meta answers the documented 503', async () => {
    const doc = await fetchDoc(h().app);
    const p = await newProject(h().deps);

    const res = await h().app.inject({
      method: 'PUT',
      url: '/api/v1/connections/meta',
      headers: p.headers,
      payload: { dataset_id: '123456', access_token: 'A'.repeat(30), active: true },
    });

    expect(res.json()).toEqual({
      msg: 'Secrets are not configured on this server (SECRETS_KEY). Ask its operator.',
      status: 503,
    });
    expect(answerProblems(doc, 'PUT', '/api/v1/connections/meta', res)).toEqual([]);
    expect(operation(doc, 'PUT', '/api/v1/connections/meta').responses['503']?.description).toContain('SECRETS_KEY');
  });

  it('when ClickHouse fails a reporting query, then 500 `Internal server error` as documented', async () => {
    const doc = await fetchDoc(h().app);
    const p = await newProject(h().deps);
    const boom = async () => {
      throw new Error('clickhouse exploded');
    };
    const ch = { ...h().deps.ch, query: boom, insert: boom, command: boom, exec: boom } as unknown as ClickHouseClient;

    const res = await withApp({ ch }, (app) =>
      app.inject({ method: 'GET', url: '/api/v1/reporting/campaigns', headers: p.headers }),
    );

    expect(res.json()).toEqual({ msg: 'Internal server error', status: 500 });
    expect(answerProblems(doc, 'GET', '/api/v1/reporting/campaigns', res)).toEqual([]);
  });
});
