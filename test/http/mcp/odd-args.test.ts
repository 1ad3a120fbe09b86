// MCP tools with odd arguments must answer a JSON-RPC result (a tool error at worst),
// never a 5xx (README "MCP server": "A tool failure is a result with isError: true").
import { describe, expect, it } from 'vitest';
import { newProject, useHarness } from '../../support/harness.ts';
import { mcpToken, rpc } from './mcp-client.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

const call = (token: string, name: string, args: Record<string, unknown>) =>
  rpc(h().app, token, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });

describe('MCP tools with odd text arguments', () => {
  it.each([
    ['lookup_attribution', { user_id: 'a\u0000b' }],
    ['lookup_attribution', { device_identifier: '\u0000' }],
    ['lookup_attribution', { install_instance_id: 'x\u0000' }],
    ['lookup_attribution', { user_id: '\ud800' }],
    ['lookup_attribution', { install_instance_id: '\udfff' }],
    ['list_campaigns', { channel: '\u0000' }],
    ['list_campaigns', { domain: 'a\u0000.com' }],
    ['list_campaigns', { link: 'https://x/?c=\u0000' }],
    ['list_campaigns', { link: '\ud800' }],
    ['list_campaigns', { page: 9007199254740991 }],
    ['list_campaigns', { page: 9007199254740991, limit: 1000 }],
    ['get_billing_usage', { month: '2149-12' }],
    ['get_billing_usage', { from: '1970-01-01', to: '2149-06-06' }],
    ['get_billing_usage', { from: '0001-01-01' }],
    ['get_billing_usage', { to: '0001-01-01' }],
    ['get_billing_usage', { from: '2149-06-06' }],
    ['get_project_stats', { from: '0001-01-01', to: '9999-12-31' }],
    ['list_events', { from: '2024-02-30' }],
  ])('when %s gets %j, then a JSON-RPC 200 answer, never a 5xx', async (name, args) => {
    const p = await newProject(h().deps);
    const token = await mcpToken(h().deps, p);

    const res = await call(token, name, args);

    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().result, res.body).toBeDefined();
  });
});

describe('the HTTP twin of lookup_attribution with NUL (for comparison)', () => {
  it('when GET /api/v1/get-attribution-result gets user_id with NUL, then not a 5xx', async () => {
    const p = await newProject(h().deps);
    const res = await h().app.inject({
      method: 'GET',
      url: '/api/v1/get-attribution-result?user_id=a%00b',
      headers: p.headers,
    });
    expect(res.statusCode, res.body).toBeLessThan(500);
  });
});

describe('the token in answers', () => {
  it.each([
    ['POST', '/extra'],
    ['PUT', ''],
    ['PATCH', ''],
    ['POST', '/'],
  ])('when %s /mcp/<token>%s is asked, then no answer body or header holds the token', async (method, tail) => {
    const p = await newProject(h().deps);
    const token = await mcpToken(h().deps, p);

    const res = await h().app.inject({
      method: method as 'POST',
      url: `/mcp/${token}${tail}`,
      headers: { 'content-type': 'application/json' },
      payload: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });

    expect(res.statusCode).toBeLessThan(500);
    expect(res.body).not.toContain(token.slice(4));
    expect(JSON.stringify(res.headers)).not.toContain(token.slice(4));
  });
});
