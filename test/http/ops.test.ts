// Operations endpoints: /healthz (the process answers), /readyz (each store answers; 503 when one
// is down), /openapi.json (OpenAPI 3.1 listing every /api/v1 route with the spec's fields) and /docs.
import type { FastifyInstance } from 'fastify';
import { describe, expect, inject, it } from 'vitest';
import type { Deps } from '../../src/deps.ts';
import type { ClickHouseClient } from '../../src/store/clickhouse/client.ts';
import { createPool } from '../../src/store/postgres/pool.ts';
import { createRedis } from '../../src/store/redis/client.ts';
import { closeHarness, makeHarness, useHarness, withAppOver } from '../support/harness.ts';
import { freePort } from '../support/processes.ts';

const h = useHarness();

/** buildApp over the harness stores with some replaced; closes the app afterwards. */
const withApp = <T>(replace: Partial<Deps>, run: (app: FastifyInstance) => Promise<T>) =>
  withAppOver(h(), replace, run);

describe('GET /healthz', () => {
  it('when the process is up, then 200 {status: ok}', async () => {
    const res = await h().app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('when Postgres is unreachable, then /healthz still answers 200 (liveness ignores stores)', async () => {
    const sql = createPool(`postgres://postgres@127.0.0.1:${await freePort()}/test`, 1);
    try {
      const res = await withApp({ sql }, (app) => app.inject({ method: 'GET', url: '/healthz' }));
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'ok' });
    } finally {
      await sql.end({ timeout: 1 });
    }
  });
});

describe('GET /readyz', () => {
  it('when Postgres and ClickHouse answer and Redis is not configured, then 200 ready', async () => {
    const res = await h().app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'ready',
      checks: { postgres: 'ok', clickhouse: 'ok', redis: 'not configured' },
    });
  });

  it.skipIf(!inject('redisUrl'))('when Redis is configured and answers, then 200 with redis ok', async () => {
    const rh = await makeHarness({ redis: true });
    try {
      const res = await rh.app.inject({ method: 'GET', url: '/readyz' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'ready', checks: { postgres: 'ok', clickhouse: 'ok', redis: 'ok' } });
    } finally {
      await closeHarness(rh);
    }
  });

  it('when Postgres is unreachable, then 503 not ready with postgres down', async () => {
    const sql = createPool(`postgres://postgres@127.0.0.1:${await freePort()}/test`, 1);
    try {
      const res = await withApp({ sql }, (app) => app.inject({ method: 'GET', url: '/readyz' }));
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({
        status: 'not ready',
        checks: { postgres: 'down', clickhouse: 'ok', redis: 'not configured' },
      });
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it('when Redis is configured but unreachable, then 503 not ready with redis down', async () => {
    const redis = createRedis(`redis://127.0.0.1:${await freePort()}`, 'commands');
    redis.on('error', () => {});
    try {
      const res = await withApp({ redis }, (app) => app.inject({ method: 'GET', url: '/readyz' }));
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ status: 'not ready', checks: { postgres: 'ok', clickhouse: 'ok', redis: 'down' } });
    } finally {
      redis.disconnect();
    }
  });

  it('when the ClickHouse ping fails, then 503 not ready with clickhouse down', async () => {
    const ch = { ping: async () => ({ success: false, error: new Error('down') }) } as unknown as ClickHouseClient;
    const res = await withApp({ ch }, (app) => app.inject({ method: 'GET', url: '/readyz' }));
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({
      status: 'not ready',
      checks: { postgres: 'ok', clickhouse: 'down', redis: 'not configured' },
    });
  });
});

type Json = Record<string, unknown>;
type OpenApiOperation = {
  parameters: { name: string; in: string; required: boolean }[];
  requestBody?: { content: { 'application/json': { schema: { properties: Json; required?: string[] } } } };
  responses: Record<string, unknown>;
  security: unknown[];
};
type JsonSchema = { type?: string | string[]; anyOf?: JsonSchema[]; items?: JsonSchema };
type OpenApiDoc = { openapi: string; paths: Record<string, Record<string, OpenApiOperation>>; components: Json };

/** The JSON types a property schema admits, sorted ({type}, {type: [...]} or anyOf). */
function typesOf(s: JsonSchema | undefined): string[] {
  if (!s) {
    return [];
  }
  const own = s.type === undefined ? [] : [s.type].flat();
  return [...own, ...(s.anyOf ?? []).flatMap(typesOf)].sort();
}

const V1_ROUTES: [method: string, openApiPath: string, fastifyPath: string][] = [
  ['get', '/api/v1/campaigns', '/api/v1/campaigns'],
  ['post', '/api/v1/create-campaign', '/api/v1/create-campaign'],
  ['patch', '/api/v1/campaigns/{display_id}', '/api/v1/campaigns/:display_id'],
  ['put', '/api/v1/campaigns/{display_id}', '/api/v1/campaigns/:display_id'],
  ['delete', '/api/v1/campaigns/{display_id}', '/api/v1/campaigns/:display_id'],
];

describe('GET /openapi.json', () => {
  const doc = async (): Promise<OpenApiDoc> => {
    const res = await h().app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    return res.json() as OpenApiDoc;
  };
  const op = (d: OpenApiDoc, method: string, path: string): OpenApiOperation => {
    const found = d.paths[path]?.[method];
    if (!found) {
      throw new Error(`${method} ${path} is not in the document`);
    }
    return found;
  };

  it('when fetched, then it is OpenAPI 3.1.0 with the service-key header scheme', async () => {
    const d = await doc();
    expect(d.openapi).toBe('3.1.0');
    expect(d.components).toMatchObject({
      securitySchemes: { serviceKey: { type: 'apiKey', in: 'header', name: 'service-key' } },
    });
  });

  it.each(V1_ROUTES)('when fetched, then it documents %s %s, a route the app serves', async (method, path, route) => {
    const d = await doc();
    const o = op(d, method, path);
    expect(o.security).toEqual([{ serviceKey: [] }, { linkrunnerKey: [] }]);
    expect(Object.keys(o.responses)).toEqual(expect.arrayContaining(['401', '429']));
    expect(h().app.hasRoute({ method: method.toUpperCase() as 'GET', url: route })).toBe(true);
  });

  it('when fetched, then every documented operation is a route the app serves', async () => {
    const d = await doc();
    const unserved = Object.entries(d.paths)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => [m.toUpperCase(), path.replace(/\{(\w+)\}/g, ':$1')]))
      .filter(([m, url]) => !h().app.hasRoute({ method: m as 'GET', url: url as string }));
    expect(unserved).toEqual([]);
  });

  it('when fetched, then create-campaign has the spec body fields, name required', async () => {
    const body = op(await doc(), 'post', '/api/v1/create-campaign').requestBody;
    const schema = body?.content['application/json'].schema;
    expect(Object.keys(schema?.properties ?? {})).toEqual(
      expect.arrayContaining([
        'name',
        'deeplink',
        'link_for_desktop_users',
        'android_web_redirect',
        'ios_web_redirect',
        'custom_display_id',
        'is_shortlink',
        'domain',
        'store_listing_ids',
      ]),
    );
    expect(schema?.required).toEqual(['name']);
    const props = (schema?.properties ?? {}) as Record<string, JsonSchema>;
    expect(typesOf(props.name)).toEqual(['string']);
    for (const f of ['deeplink', 'link_for_desktop_users', 'android_web_redirect', 'ios_web_redirect']) {
      expect(typesOf(props[f]), f).toEqual(['null', 'string']);
    }
    for (const f of ['custom_display_id', 'domain']) {
      expect(typesOf(props[f]), f).toEqual(['null', 'string']);
    }
    expect(typesOf(props.is_shortlink)).toEqual(['boolean', 'null']);
    expect(typesOf(props.store_listing_ids)).toEqual(['array', 'null']);
    expect(props.store_listing_ids?.anyOf).toContainEqual(
      expect.objectContaining({ type: 'array', items: { type: 'string', minLength: 1 } }),
    );
  });

  it('when fetched, then the list lists its query parameters, all optional', async () => {
    const params = op(await doc(), 'get', '/api/v1/campaigns').parameters;
    expect(params.map((p) => p.name).sort()).toEqual(['channel', 'domain', 'filter', 'limit', 'link', 'page']);
    expect(params.every((p) => p.in === 'query' && p.required === false)).toBe(true);
  });

  it('when fetched, then edit and delete take display_id as a required path parameter', async () => {
    const d = await doc();
    for (const method of ['patch', 'put', 'delete']) {
      expect(op(d, method, '/api/v1/campaigns/{display_id}').parameters).toEqual([
        expect.objectContaining({ name: 'display_id', in: 'path', required: true }),
      ]);
    }
    const editBody = op(d, 'patch', '/api/v1/campaigns/{display_id}').requestBody;
    expect(Object.keys(editBody?.content['application/json'].schema.properties ?? {})).toEqual(['name', 'active']);
  });
});

describe('GET /docs', () => {
  it('when fetched, then 200 HTML naming every /api/v1 route, with no external assets', async () => {
    const res = await h().app.inject({ method: 'GET', url: '/docs' });

    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toMatch(/^<!doctype html>/);
    for (const [method, path] of V1_ROUTES) {
      expect(res.body).toContain(`${method.toUpperCase()} ${path}`);
    }
    expect(res.body).toContain('href="/openapi.json"');
    expect(res.body).not.toMatch(/(src|href)="(https?:)?\/\//);
  });
});
