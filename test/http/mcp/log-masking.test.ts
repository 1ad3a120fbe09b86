// The MCP token is the URL (product-notes "MCP"), so it must never reach a log: the request
// serializer (src/lib/logger.ts) masks the path segment after /mcp/ on every access-log line, for
// answered, refused and mistyped requests alike. Logs are captured at the default level (info).
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.ts';
import { createLogger } from '../../../src/lib/logger.ts';
import { newProject, useHarness } from '../../support/harness.ts';
import { mcpToken, rpc } from './mcp-client.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

function memoryLogger() {
  let out = '';
  const log = createLogger(
    'info',
    new Writable({
      write(chunk, _enc, done) {
        out += String(chunk);
        done();
      },
    }),
  );
  return { log, text: () => out };
}

async function logsOf(run: (app: FastifyInstance) => Promise<void>): Promise<string> {
  const { log, text } = memoryLogger();
  const app = await buildApp({ ...h().deps, log });
  try {
    await run(app);
  } finally {
    await app.close();
  }
  return text();
}

/** The token's random part: what must not appear, whatever masks its prefix. */
const secretOf = (token: string) => token.slice('mcp_'.length);

describe('MCP tokens in the access log', () => {
  it('when a token is used, refused, revoked, mistyped or sent with GET, then no log line holds it', async () => {
    const p = await newProject(h().deps);
    const token = await mcpToken(h().deps, p);
    const unknown = `mcp_${'Z'.repeat(43)}`;
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };

    const out = await logsOf(async (app) => {
      expect((await rpc(app, token, ping)).statusCode).toBe(200);
      expect(
        (await rpc(app, token, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_project_info' } }))
          .statusCode,
      ).toBe(200);
      expect((await rpc(app, unknown, ping)).statusCode).toBe(401);
      expect((await rpc(app, token, '{not json')).statusCode).toBe(400);
      expect((await app.inject({ method: 'GET', url: `/mcp/${token}` })).statusCode).toBe(405);
      for (const url of [`/MCP/${token}`, `//mcp//${token}?x=1`, `/mcp%2F${token}`, `/mcp/${token}/extra`]) {
        expect((await app.inject({ method: 'POST', url, payload: ping })).statusCode, url).toBe(404);
      }
    });

    const lines = out.split('\n').filter(Boolean);
    expect(lines.filter((l) => l.includes('incoming request')).length).toBeGreaterThanOrEqual(9);
    expect(lines.filter((l) => l.includes(secretOf(token)))).toEqual([]);
    expect(lines.filter((l) => l.includes(secretOf(unknown)))).toEqual([]);
    expect(out).toContain('"url":"/mcp/[redacted]"');
  });

  it('when a request line is logged directly, then the segment after /mcp/ is masked in any case and after %2F', () => {
    const { log, text } = memoryLogger();

    for (const url of ['/mcp/mcp_secret1?a=b', '/api/x/MCP/mcp_secret2#f', '/mcp%2fmcp_secret3', '/mcp-docs/keep']) {
      log.info({ req: { method: 'POST', url } }, 'line');
    }

    const urls = text()
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { req: { url: string } }).req.url);
    expect(urls).toEqual(['/mcp/[redacted]?a=b', '/api/x/MCP/[redacted]#f', '/mcp%2f[redacted]', '/mcp-docs/keep']);
  });
});
