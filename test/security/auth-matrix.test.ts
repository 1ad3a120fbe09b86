// Catalog §4d D1 (auth matrix, OWASP API2) and D2 (token vs key confusion) over EVERY route the app
// serves, read back from Fastify's route tree: a new /api/v1 or /api/client route fails this file
// until it is given its 401 texts here. test/http/v1/auth.test.ts checks the spec's six campaign
// routes in depth (accepted answers, linkrunner-key); this file is the complete matrix. MCP and
// RevenueCat tokens are refused here like project tokens; their own routes are in auth-surfaces.test.ts.
import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { createMcpToken } from '../../src/domain/mcp/create-mcp-token.ts';
import { rotateServerKey } from '../../src/domain/projects/rotate-server-key.ts';
import { MSG } from '../../src/http/messages.ts';
import { newProject, type TestProject, useHarness } from '../support/harness.ts';
import { listenOnLoopback, rawExchange, rawRequest } from '../support/raw-http.ts';
import { figure, type ServedRoute, servedRoutes, Tally } from '../support/security-routes.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

type Texts = { missing: string; invalid: string };
const DATA: Texts = { missing: MSG.unauthorized, invalid: MSG.unauthorized };
const USERS: Texts = { missing: MSG.authFailed, invalid: MSG.authFailed };
const CRUD: Texts = { missing: MSG.serverKeyMissing, invalid: MSG.serverKeyInvalid };

/** Each /api/v1 route's 401 texts (spec: Authentication; extension routes follow their family). */
const V1_TEXTS: Record<string, Texts> = {
  'GET /api/v1/campaigns': DATA,
  'GET /api/v1/get-attribution-result': DATA,
  'GET /api/v1/attributed-users': USERS,
  'GET /api/v1/reporting/campaigns': DATA,
  'GET /api/v1/audiences/export': DATA,
  'POST /api/v1/capture-event': DATA,
  'POST /api/v1/capture-payment': DATA,
  'POST /api/v1/remove-payment': DATA,
  'POST /api/v1/create-campaign': CRUD,
  'PATCH /api/v1/campaigns/:display_id': CRUD,
  'PUT /api/v1/campaigns/:display_id': CRUD,
  'DELETE /api/v1/campaigns/:display_id': CRUD,
  // The edit/delete paths without an id answer 400 `Display ID is required!` once past auth.
  'PATCH /api/v1/campaigns': CRUD,
  'PUT /api/v1/campaigns': CRUD,
  'DELETE /api/v1/campaigns': CRUD,
  'PATCH /api/v1/campaigns/': CRUD,
  'PUT /api/v1/campaigns/': CRUD,
  'DELETE /api/v1/campaigns/': CRUD,
  'DELETE /api/v1/users/:user_id': CRUD,
  'PUT /api/v1/spend': CRUD,
  'POST /api/v1/spend': CRUD,
  'PUT /api/v1/connections/meta': CRUD,
  'PUT /api/v1/connections/meta/mappings': CRUD,
  'PUT /api/v1/connections/revenuecat': CRUD,
  'GET /api/v1/connections/revenuecat': CRUD,
  'DELETE /api/v1/connections/revenuecat': CRUD,
  'PUT /api/v1/connections/braze': CRUD,
  'GET /api/v1/connections/braze': CRUD,
  'DELETE /api/v1/connections/braze': CRUD,
  'PUT /api/v1/connections/mixpanel': CRUD,
  'GET /api/v1/connections/mixpanel': CRUD,
  'DELETE /api/v1/connections/mixpanel': CRUD,
  'PUT /api/v1/connections/amplitude': CRUD,
  'GET /api/v1/connections/amplitude': CRUD,
  'DELETE /api/v1/connections/amplitude': CRUD,
  'PUT /api/v1/connections/posthog': CRUD,
  'GET /api/v1/connections/posthog': CRUD,
  'DELETE /api/v1/connections/posthog': CRUD,
  'PUT /api/v1/connections/ga4': CRUD,
  'GET /api/v1/connections/ga4': CRUD,
  'DELETE /api/v1/connections/ga4': CRUD,
  'PUT /api/v1/connections/clevertap': CRUD,
  'GET /api/v1/connections/clevertap': CRUD,
  'DELETE /api/v1/connections/clevertap': CRUD,
  'PUT /api/v1/skan/schema': CRUD,
  'GET /api/v1/skan/schema': CRUD,
};

const routeKey = (r: ServedRoute) => `${r.method} ${r.url}`;
/** HEAD is served for every GET and runs the same preHandler; its answer has no body. */
const textsOf = (r: ServedRoute): Texts | undefined =>
  V1_TEXTS[routeKey({ ...r, method: r.method === 'HEAD' ? 'GET' : r.method })];

let v1: ServedRoute[] = [];
let client: ServedRoute[] = [];
let a: TestProject;
let revokedKey = '';
let mcpToken = '';
let rcToken = '';

beforeAll(async () => {
  const routes = servedRoutes(h().app);
  v1 = routes.filter((r) => r.url.startsWith('/api/v1/'));
  client = routes.filter((r) => r.url.startsWith('/api/client/'));
  a = await newProject(h().deps);
  mcpToken = (await createMcpToken(h().deps, a.project.id, { name: 'matrix' })).token;
  const rc = await h().app.inject({ method: 'PUT', url: '/api/v1/connections/revenuecat', headers: a.headers });
  rcToken = rc.json().data.authorization_token as string;
  const r = await newProject(h().deps);
  await rotateServerKey(h().deps, r.project.id);
  revokedKey = r.serverKey;
});

function send(
  route: ServedRoute,
  headers: Record<string, string>,
  query = '',
): Promise<{ statusCode: number; body: string }> {
  const url = route.url.replace(/:([a-z_]+)/g, 'x') + (query ? `?${query}` : '');
  const hasBody = ['POST', 'PUT', 'PATCH'].includes(route.method);
  return h().app.inject({
    method: route.method as InjectOptions['method'],
    url,
    headers,
    ...(hasBody ? { payload: {} } : {}),
  });
}

/** True when the answer is exactly 401 with `msg` (HEAD: status only). */
function is401(route: ServedRoute, res: { statusCode: number; body: string }, msg: string): boolean {
  if (res.statusCode !== 401) {
    return false;
  }
  return route.method === 'HEAD' || res.body === JSON.stringify({ msg, status: 401 });
}

describe('D1 auth matrix over every /api/v1 route', () => {
  it('when the app is built, then every served /api/v1 route has its 401 texts in this matrix', () => {
    const unknown = v1.filter((r) => !textsOf(r)).map(routeKey);
    const served = new Set(v1.map((r) => routeKey(r)));
    const gone = Object.keys(V1_TEXTS).filter((k) => !served.has(k));

    expect(unknown).toEqual([]);
    expect(gone).toEqual([]);
    expect(v1.length).toBeGreaterThanOrEqual(Object.keys(V1_TEXTS).length);
  });

  it('when the key is missing, empty, blank, only in the query, a cookie or Authorization, unknown, revoked, the project token, an MCP token or a RevenueCat token, then 401 with the exact text', async () => {
    const tally = new Tally();
    const key = encodeURIComponent(a.serverKey);
    for (const route of v1) {
      const texts = textsOf(route) ?? CRUD;
      const refused: [string, Record<string, string>, string, string][] = [
        ['missing', {}, '', texts.missing],
        ['empty', { 'service-key': '' }, '', texts.missing],
        ['blank', { 'service-key': ' \t ' }, '', texts.missing],
        ['query', {}, `service-key=${key}&service_key=${key}&linkrunner-key=${key}&key=${key}`, texts.missing],
        ['cookie', { cookie: `service-key=${a.serverKey}` }, '', texts.missing],
        ['bearer', { authorization: `Bearer ${a.serverKey}` }, '', texts.missing],
        ['unknown', { 'service-key': `sk_${randomBytes(32).toString('base64url')}` }, '', texts.invalid],
        ['upper-cased key', { 'service-key': a.serverKey.toUpperCase() }, '', texts.invalid],
        ['revoked', { 'service-key': revokedKey }, '', texts.invalid],
        ['project token', { 'service-key': a.token }, '', texts.invalid],
        ['project token (linkrunner-key)', { 'linkrunner-key': a.token }, '', texts.invalid],
        ['MCP token', { 'service-key': mcpToken }, '', texts.invalid],
        ['RevenueCat token', { 'service-key': rcToken }, '', texts.invalid],
        ['RevenueCat token (linkrunner-key)', { 'linkrunner-key': rcToken }, '', texts.invalid],
        ['RevenueCat token as Authorization', { authorization: `Bearer ${rcToken}` }, '', texts.missing],
      ];
      for (const [what, headers, query, msg] of refused) {
        const res = await send(route, headers, query);
        tally.check(is401(route, res, msg), `${routeKey(route)} ${what}: ${res.statusCode} ${res.body}`);
      }
    }
    figure('D1 refused', { routes: v1.length, probes: tally.probes, accepted_should_refuse: tally.bad });

    expect(tally.failures).toEqual([]);
  });

  it('when the key has spaces around it or the header is written Service-Key, then the route gets past auth', async () => {
    const tally = new Tally();
    for (const route of v1) {
      for (const headers of [{ 'service-key': `  ${a.serverKey} ` }, { 'Service-Key': a.serverKey }] as Record<
        string,
        string
      >[]) {
        const res = await send(route, headers);
        tally.check(res.statusCode !== 401, `${routeKey(route)} ${JSON.stringify(Object.keys(headers))}: ${res.body}`);
      }
    }
    figure('D1 accepted', { routes: v1.length, probes: tally.probes, refused_should_accept: tally.bad });

    expect(tally.failures).toEqual([]);
  });
});

describe('D1 two service-key headers (raw socket)', () => {
  let listener: FastifyInstance | undefined;
  let port = 0;
  beforeAll(async () => {
    listener = await buildApp(h().deps);
    port = await listenOnLoopback(listener);
  });
  afterAll(async () => {
    await listener?.close();
  });

  it('when a route gets the valid key twice (Node joins them "k, k"), then 401 with the invalid-key text', async () => {
    const tally = new Tally();
    for (const route of v1.filter((r) => r.method !== 'HEAD')) {
      const texts = textsOf(route) ?? CRUD;
      const body = ['POST', 'PUT', 'PATCH'].includes(route.method) ? '{}' : '';
      const url = route.url.replace(/:([a-z_]+)/g, 'x');
      const twice: [string, string][] = [
        ['service-key', a.serverKey],
        ['service-key', a.serverKey],
      ];
      const request = rawRequest(route.method, url, twice, body);
      const res = await rawExchange(port, request);
      tally.check(is401(route, res, texts.invalid), `${routeKey(route)}: ${res.statusCode} ${res.body}`);
    }
    figure('D1 duplicate header', { probes: tally.probes, accepted_should_refuse: tally.bad });

    expect(tally.failures).toEqual([]);
  });
});

describe('D2 token vs key confusion', () => {
  it('when the server key, an MCP token or a RevenueCat token is the body token on every /api/client route, then 400 (attribution-data 401) with the token text', async () => {
    const tally = new Tally();
    expect(client.length).toBeGreaterThanOrEqual(11);
    for (const route of client) {
      const status = route.url === '/api/client/attribution-data' ? 401 : 400;
      const bodies: [string, Record<string, unknown>, Record<string, string>][] = [
        ['server key as token', { token: a.serverKey }, {}],
        ['server key as token, key header too', { token: a.serverKey }, a.headers],
        ['no token, key header', {}, a.headers],
        ['no token, key as linkrunner-key', {}, { 'linkrunner-key': a.serverKey }],
        ['MCP token as token', { token: mcpToken }, {}],
        ['RevenueCat token as token', { token: rcToken }, {}],
        ['no token, RevenueCat token as Authorization', {}, { authorization: `Bearer ${rcToken}` }],
      ];
      for (const [what, extra, headers] of bodies) {
        const res = await h().app.inject({
          method: 'POST',
          url: route.url,
          headers,
          payload: { platform: 'ANDROID', install_instance_id: randomUUID(), ...extra },
        });
        const exact = res.body === JSON.stringify({ msg: MSG.clientTokenInvalid, status });
        tally.check(res.statusCode === status && exact, `${route.url} ${what}: ${res.statusCode} ${res.body}`);
      }
    }
    figure('D2 key as client token', { routes: client.length, probes: tally.probes, accepted: tally.bad });

    expect(tally.failures).toEqual([]);
  });

  it('when the project token is offered to /api/v1 as header, query or body token, then nothing opens', async () => {
    const tally = new Tally();
    const t = encodeURIComponent(a.token);
    for (const route of v1) {
      for (const [headers, query] of [
        [{ 'service-key': a.token }, ''],
        [{}, `token=${t}`],
        [{ authorization: `Bearer ${a.token}` }, ''],
      ] as const) {
        const res = await send(route, headers, query);
        tally.check(
          res.statusCode === 401,
          `${routeKey(route)} ${JSON.stringify(headers)} ${query}: ${res.statusCode}`,
        );
      }
      if (['POST', 'PUT', 'PATCH'].includes(route.method)) {
        const res = await h().app.inject({
          method: route.method as InjectOptions['method'],
          url: route.url.replace(/:([a-z_]+)/g, 'x'),
          payload: { token: a.token },
        });
        tally.check(res.statusCode === 401, `${routeKey(route)} body token: ${res.statusCode}`);
      }
    }
    figure('D2 token on /api/v1', { probes: tally.probes, accepted: tally.bad });

    expect(tally.failures).toEqual([]);
  });
});
