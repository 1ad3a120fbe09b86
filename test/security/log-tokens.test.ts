// Catalog §4d D8 (logs) and I7 for the MCP and RevenueCat tokens (README "Security notes": the
// `authorization` header is redacted, "and so are tokens, server keys ... wherever they appear in
// logged objects"; "a logged request URL has the segment after /mcp/ masked"; keys and tokens in
// a URL's query string are masked). The whole life of both tokens (issued, used, refused, rotated,
// sent in the wrong place) runs at the default level and at trace; no line holds either token or
// the server key. Then the logger itself, given objects shaped as code logs headers.
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { createMcpToken } from '../../src/domain/mcp/create-mcp-token.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { registeredUser } from '../support/commerce.ts';
import { useHarness } from '../support/harness.ts';
import { figure } from '../support/security-routes.ts';
import { connectRevenueCat, rcEvent } from '../support/security-surfaces.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

function memoryLogger(level: string) {
  let out = '';
  const log = createLogger(
    level,
    new Writable({
      write(chunk, _enc, done) {
        out += String(chunk);
        done();
      },
    }),
  );
  return { log, text: () => out };
}

/** The random part of a token: what must not appear, whatever masks its prefix. */
const secretOf = (token: string) => token.slice(token.indexOf('_') + 1);

async function lifeOfBothTokens(app: FastifyInstance): Promise<{ secrets: string[]; statuses: number[] }> {
  const { p } = await registeredUser(h(), 'log-user');
  const mcp = (await createMcpToken(h().deps, p.project.id, { name: 'logs' })).token;
  const put = await app.inject({ method: 'PUT', url: '/api/v1/connections/revenuecat', headers: p.headers });
  const first = put.json().data.authorization_token as string;
  const rc = await connectRevenueCat({ ...h(), app }, p);
  const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
  const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url, headers, payload: payload as object });
  const statuses = [
    (await post(`/mcp/${mcp}`, ping)).statusCode,
    (await post(`/mcp/${mcp}`, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'nope' } })).statusCode,
    (await post(`/mcp/${mcp}`, '{"jsonrpc":', { 'content-type': 'application/json' })).statusCode,
    (await post(`/mcp/${mcp}`, ping, { origin: 'https://evil.example' })).statusCode,
    (await post(`/mcp/${rc}`, ping)).statusCode,
    (await app.inject({ method: 'GET', url: `/mcp/${mcp}?token=${mcp}` })).statusCode,
    (await app.inject({ method: 'DELETE', url: `/mcp/${mcp}` })).statusCode,
    (await post(`/MCP/${mcp}`, ping)).statusCode,
    (
      await post('/webhook/revenuecat', rcEvent({ id: 'e1', app_user_id: 'log-user' }), {
        authorization: `Bearer ${rc}`,
      })
    ).statusCode,
    (await post('/webhook/revenuecat', rcEvent({ type: 'TEST' }), { authorization: rc })).statusCode,
    (await post('/webhook/revenuecat', { event: { type: 'RENEWAL' } }, { authorization: rc })).statusCode,
    (await post('/webhook/revenuecat', rcEvent({ type: 'TEST' }), { authorization: `Bearer ${first}` })).statusCode,
    (await post('/webhook/revenuecat', rcEvent({ type: 'TEST' }), { authorization: mcp })).statusCode,
    (await post(`/webhook/revenuecat?authorization=${rc}&token=${rc}`, rcEvent({ type: 'TEST' }))).statusCode,
    (await post(`/webhook/revenuecat?x=${rc}`, rcEvent({ type: 'TEST' }))).statusCode,
    (await app.inject({ method: 'GET', url: `/api/v1/connections/revenuecat?rc=${rc}`, headers: p.headers }))
      .statusCode,
    (await app.inject({ method: 'GET', url: '/api/v1/campaigns', headers: { 'service-key': rc } })).statusCode,
  ];
  return { secrets: [mcp, rc, first, p.serverKey].map(secretOf), statuses };
}

describe('D8 MCP and RevenueCat tokens never reach the logs', () => {
  it.each(['info', 'trace'])(
    'when both tokens are issued, used, refused, rotated and misplaced at level %s, then no log line holds one',
    async (level) => {
      const { log, text } = memoryLogger(level);
      const app = await buildApp({ ...h().deps, log });
      let run: Awaited<ReturnType<typeof lifeOfBothTokens>>;
      try {
        run = await lifeOfBothTokens(app);
      } finally {
        await app.close();
      }
      const lines = text().split('\n').filter(Boolean);
      const leaking = lines.filter((l) => run.secrets.some((s) => l.includes(s)));
      figure(`D8 token logs (${level})`, { lines: lines.length, leaking_lines: leaking.length });

      expect(run.statuses).toEqual([
        200, 200, 400, 403, 401, 405, 405, 404, 200, 200, 400, 401, 401, 401, 401, 200, 401,
      ]);
      expect(lines.filter((l) => l.includes('incoming request')).length).toBeGreaterThanOrEqual(17);
      expect(leaking.map((l) => l.slice(0, 300))).toEqual([]);
      expect(text()).toContain('"url":"/mcp/[redacted]"');
    },
  );

  it('when code logs request or response headers, or a token under its own name, then Authorization, cookies and tokens are [redacted]', () => {
    const { log, text } = memoryLogger('info');
    const rc = 'rc_Wm9vT2RkVG9rZW5WYWx1ZUZvclRoZVJldmVudWVDYXRXZWJob29r';
    const shapes: Record<string, unknown> = {
      headers: { authorization: `Bearer ${rc}`, cookie: `s=${rc}`, 'service-key': rc },
      'headers (outbound spelling)': { headers: { Authorization: `Bearer ${rc}` } },
      'request headers': { request: { headers: { authorization: rc, 'linkrunner-key': rc } } },
      'response headers': { res: { headers: { authorization: rc, cookie: rc } } },
      'authorization field': { authorization: `Bearer ${rc}` },
      'authorization_token (the PUT answer)': { data: { authorization_token: rc } },
    };

    for (const [what, obj] of Object.entries(shapes)) {
      log.info(what === 'headers' ? { headers: obj } : (obj as object), what);
    }

    const leaking = text()
      .split('\n')
      .filter((l) => l.includes(secretOf(rc)));
    expect(leaking.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual([]);
    expect(text()).toContain('[redacted]');
  });
});
