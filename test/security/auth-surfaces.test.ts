// Catalog §4d D1 and D2 for the two surfaces outside /api that carry their own credential (README
// "MCP server", "RevenueCat webhook", "Security notes"): the MCP token in the path of POST /mcp/<token>
// (401 `MCP token invalid or revoked.`; GET and DELETE 405 whatever the token) and the RevenueCat
// token in the Authorization header of POST /webhook/revenuecat (401 `Unauthorized access.`, before
// the body is read). Every served route outside /api is either open or one of these, so a new one
// fails here until it is classified. Then the confusion matrix: a server key, a project token, an MCP
// token and a RevenueCat token, each where another one is expected, open nothing.
import { randomBytes, randomUUID } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { createMcpToken } from '../../src/domain/mcp/create-mcp-token.ts';
import { revokeMcpToken } from '../../src/domain/mcp/revoke-mcp-token.ts';
import { MSG } from '../../src/http/messages.ts';
import { registeredUser } from '../support/commerce.ts';
import { newProject, type TestProject, useHarness } from '../support/harness.ts';
import { figure, type ServedRoute, servedRoutes, Tally } from '../support/security-routes.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

/** Served routes outside /api that take no credential (links, well-known files, operations, docs). */
const OPEN = [
  'GET /',
  'HEAD /',
  'GET /:display_id',
  'HEAD /:display_id',
  'GET /:display_id/',
  'HEAD /:display_id/',
  'GET /.well-known/apple-app-site-association',
  'HEAD /.well-known/apple-app-site-association',
  'GET /.well-known/assetlinks.json',
  'HEAD /.well-known/assetlinks.json',
  'GET /docs',
  'GET /healthz',
  'HEAD /healthz',
  'GET /openapi.json',
  'GET /readyz',
  'HEAD /readyz',
  'OPTIONS /web/collect',
  'OPTIONS /web/ingest',
];
/** Served routes outside /api taking the project token in the body, as /api/client does (test/http/web). */
const BODY_TOKEN = ['POST /web/collect', 'POST /web/ingest'];
/** Served routes outside /api with a credential of their own, all covered below. */
const OWN_CREDENTIAL = ['POST /mcp/:token', 'GET /mcp/:token', 'DELETE /mcp/:token', 'POST /webhook/revenuecat'];

const MCP_401 = JSON.stringify({ msg: MSG.mcpTokenInvalid, status: 401 });
const RC_401 = JSON.stringify({ msg: MSG.unauthorized, status: 401 });
const PING = { jsonrpc: '2.0', id: 1, method: 'ping' };
const INFO = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_project_info' } };

type Creds = { p: TestProject; mcp: string; rc: string };
let a: Creds;
let revokedMcp = '';
let rotatedRc = '';
let removedRc = '';

async function connectRevenueCat(p: TestProject): Promise<string> {
  const res = await h().app.inject({ method: 'PUT', url: '/api/v1/connections/revenuecat', headers: p.headers });
  return res.json().data.authorization_token as string;
}

beforeAll(async () => {
  const { deps, app } = h();
  const { p } = await registeredUser(h(), 'auth-user');
  rotatedRc = await connectRevenueCat(p);
  a = { p, mcp: (await createMcpToken(deps, p.project.id, { name: 'a' })).token, rc: await connectRevenueCat(p) };
  const revoked = await createMcpToken(deps, p.project.id, { name: 'revoked' });
  await revokeMcpToken(deps, p.project.id, String(revoked.record.id));
  revokedMcp = revoked.token;
  const gone = await newProject(deps);
  removedRc = await connectRevenueCat(gone);
  await app.inject({ method: 'DELETE', url: '/api/v1/connections/revenuecat', headers: gone.headers });
});

const routeKey = (r: ServedRoute) => `${r.method} ${r.url}`;

function mcp(path: string, opts: Partial<InjectOptions> = {}) {
  return h().app.inject({
    method: 'POST',
    url: path,
    ...opts,
    headers: { 'content-type': 'application/json', ...(opts.headers as Record<string, string>) },
    payload: JSON.stringify(opts.payload ?? INFO),
  });
}

const purchase = (id: string) => ({
  event: {
    type: 'INITIAL_PURCHASE',
    id,
    app_user_id: 'auth-user',
    environment: 'PRODUCTION',
    transaction_id: id,
    price: 1,
    currency: 'USD',
  },
});

function webhook(headers: Record<string, string>, query = '', payload: unknown = purchase(randomUUID())) {
  return h().app.inject({ method: 'POST', url: `/webhook/revenuecat${query}`, headers, payload: payload as object });
}

async function payments(p: TestProject): Promise<number> {
  const [row] = await h().deps.sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM payments WHERE project_id = ${p.project.id}`;
  return row?.n ?? 0;
}

describe('D1 routes outside /api', () => {
  it('when the app is built, then every served route outside /api is open or has its own credential covered here', () => {
    const outside = servedRoutes(h().app)
      .filter((r) => !r.url.startsWith('/api/'))
      .map(routeKey);

    expect(outside.filter((k) => !OPEN.includes(k) && !OWN_CREDENTIAL.includes(k) && !BODY_TOKEN.includes(k))).toEqual(
      [],
    );
    expect([...OWN_CREDENTIAL, ...BODY_TOKEN].filter((k) => !outside.includes(k))).toEqual([]);
  });
});

describe('D1 the MCP token (path)', () => {
  it('when the path holds no live MCP token of a project, then 401 with the exact text; the live one answers', async () => {
    const tally = new Tally();
    const refused: [string, string][] = [
      ['empty', ''],
      ['unknown', `mcp_${randomBytes(32).toString('base64url')}`],
      ['revoked', revokedMcp],
      ['upper-cased', a.mcp.toUpperCase()],
      ['one more character', `${a.mcp}x`],
      ['one character less', a.mcp.slice(0, -1)],
      ['prefix only', a.mcp.slice(0, 8)],
      ['without mcp_', a.mcp.slice(4)],
      ['%-encoded NUL after it', `${a.mcp}%00`],
      ['space after it', `${a.mcp}%20`],
      ['over 128 characters', `mcp_${'A'.repeat(200)}`],
      ['server key', a.p.serverKey],
      ['project token', a.p.token],
      ['RevenueCat token', a.rc],
    ];
    for (const [what, token] of refused) {
      const res = await mcp(`/mcp/${token}`);
      tally.check(res.statusCode === 401 && res.body === MCP_401, `${what}: ${res.statusCode} ${res.body}`);
    }
    // The token is read from the path only: elsewhere in the request it opens nothing.
    const elsewhere: [string, Partial<InjectOptions>][] = [
      ['Authorization', { headers: { authorization: `Bearer ${a.mcp}` } }],
      ['service-key', { headers: { 'service-key': a.mcp } }],
      ['query', { query: { token: a.mcp } }],
      ['body', { payload: { ...INFO, token: a.mcp, params: { name: 'get_project_info', token: a.mcp } } }],
      ['cookie', { headers: { cookie: `token=${a.mcp}` } }],
    ];
    for (const [what, opts] of elsewhere) {
      const res = await mcp('/mcp/not-a-token', opts);
      tally.check(res.statusCode === 401 && res.body === MCP_401, `token in ${what}: ${res.statusCode} ${res.body}`);
    }
    const live = await mcp(`/mcp/${a.mcp}`);
    figure('D1 MCP token', { probes: tally.probes, accepted_should_refuse: tally.bad });

    expect(tally.failures).toEqual([]);
    expect(live.statusCode).toBe(200);
    expect(live.json().result.structuredContent.id).toBe(a.p.project.id);
  });

  it('when GET or DELETE names a live, revoked or no token, then 405 and no data', async () => {
    const tally = new Tally();
    for (const method of ['GET', 'DELETE'] as const) {
      for (const token of [a.mcp, revokedMcp, 'nope']) {
        const res = await h().app.inject({ method, url: `/mcp/${token}`, headers: { accept: 'text/event-stream' } });
        const exact = res.body === JSON.stringify({ msg: MSG.mcpPostOnly, status: 405 });
        tally.check(res.statusCode === 405 && exact && res.headers.allow === 'POST', `${method}: ${res.statusCode}`);
      }
    }

    expect(tally.failures).toEqual([]);
  });

  it('when a live token comes with a foreign Origin, then 403 and no data', async () => {
    for (const origin of ['https://evil.example', 'null', 'http://attr.test.evil.example', 'file://']) {
      const res = await mcp(`/mcp/${a.mcp}`, { headers: { origin } });

      expect(res.statusCode, origin).toBe(403);
      expect(res.json()).toEqual({ msg: MSG.mcpOriginForbidden, status: 403 });
    }
  });
});

describe('D1 the RevenueCat token (Authorization)', () => {
  it('when Authorization holds no current RevenueCat token, or the token sits elsewhere, then 401 with the exact text and nothing stored', async () => {
    const tally = new Tally();
    const before = await payments(a.p);
    const refused: [string, Record<string, string>, string][] = [
      ['missing', {}, ''],
      ['empty', { authorization: '' }, ''],
      ['Bearer alone', { authorization: 'Bearer ' }, ''],
      ['unknown', { authorization: `Bearer rc_${randomBytes(32).toString('base64url')}` }, ''],
      ['rotated', { authorization: `Bearer ${rotatedRc}` }, ''],
      ['removed', { authorization: removedRc }, ''],
      ['upper-cased', { authorization: a.rc.toUpperCase() }, ''],
      ['Basic', { authorization: `Basic ${a.rc}` }, ''],
      ['twice', { authorization: `Bearer ${a.rc}, Bearer ${a.rc}` }, ''],
      ['in service-key', { 'service-key': a.rc }, ''],
      ['in x-authorization', { 'x-authorization': a.rc }, ''],
      ['in a cookie', { cookie: `authorization=${a.rc}` }, ''],
      ['in the query', {}, `?authorization=${a.rc}&token=${a.rc}`],
    ];
    for (const [what, headers, query] of refused) {
      const res = await webhook(headers, query);
      tally.check(res.statusCode === 401 && res.body === RC_401, `${what}: ${res.statusCode} ${res.body}`);
    }
    const inBody = await webhook({}, '', { ...purchase(randomUUID()), token: a.rc, authorization: a.rc });
    tally.check(inBody.body === RC_401, `in the body: ${inBody.statusCode}`);
    figure('D1 RevenueCat token', { probes: tally.probes, accepted_should_refuse: tally.bad });

    expect(tally.failures).toEqual([]);
    expect(await payments(a.p)).toBe(before);
    expect((await webhook({ authorization: `Bearer ${a.rc}` })).json().data.result).toBe('stored');
  });
});

describe('D2 each credential where another is expected', () => {
  it('when a server key, project token, MCP token or RevenueCat token is used in the place of another, then it is refused with that place’s text', async () => {
    const tally = new Tally();
    const { p } = a;
    const wrong = { serverKey: p.serverKey, projectToken: p.token, mcpToken: a.mcp, revenueCatToken: a.rc };
    const others = (own: keyof typeof wrong) => Object.entries(wrong).filter(([k]) => k !== own);

    for (const [what, value] of others('serverKey')) {
      for (const header of ['service-key', 'linkrunner-key']) {
        const list = await h().app.inject({ method: 'GET', url: '/api/v1/campaigns', headers: { [header]: value } });
        const crud = await h().app.inject({
          method: 'GET',
          url: '/api/v1/connections/revenuecat',
          headers: { [header]: value },
        });
        tally.check(
          list.body === JSON.stringify({ msg: MSG.unauthorized, status: 401 }),
          `${what} as ${header}: ${list.body}`,
        );
        tally.check(
          crud.body === JSON.stringify({ msg: MSG.serverKeyInvalid, status: 401 }),
          `${what} as ${header} (crud): ${crud.body}`,
        );
      }
    }
    for (const [what, value] of others('projectToken')) {
      for (const path of ['init', 'capture-payment', 'attribution-data']) {
        const res = await h().app.inject({
          method: 'POST',
          url: `/api/client/${path}`,
          payload: { token: value, platform: 'ANDROID', install_instance_id: randomUUID(), amount: 1 },
        });
        const status = path === 'attribution-data' ? 401 : 400;
        tally.check(
          res.body === JSON.stringify({ msg: MSG.clientTokenInvalid, status }),
          `${what} as token on ${path}: ${res.body}`,
        );
      }
    }
    for (const [what, value] of others('mcpToken')) {
      const res = await mcp(`/mcp/${encodeURIComponent(value)}`);
      tally.check(res.body === MCP_401, `${what} as MCP token: ${res.statusCode} ${res.body}`);
    }
    for (const [what, value] of others('revenueCatToken')) {
      for (const authorization of [value, `Bearer ${value}`]) {
        const res = await webhook({ authorization });
        tally.check(res.body === RC_401, `${what} as RevenueCat token: ${res.statusCode} ${res.body}`);
      }
    }
    // Each in its own place works (the probes above are meaningful).
    const own = [
      (await h().app.inject({ method: 'GET', url: '/api/v1/campaigns', headers: p.headers })).statusCode,
      (await mcp(`/mcp/${a.mcp}`, { payload: PING })).statusCode,
      (await webhook({ authorization: a.rc }, '', { event: { type: 'TEST' } })).statusCode,
      (
        await h().app.inject({
          method: 'POST',
          url: '/api/client/init',
          payload: { token: p.token, platform: 'ANDROID', install_instance_id: randomUUID() },
        })
      ).statusCode,
    ];
    figure('D2 credential confusion', { probes: tally.probes, accepted: tally.bad });

    expect(tally.failures).toEqual([]);
    expect(own).toEqual([200, 200, 200, 202]);
  });
});
