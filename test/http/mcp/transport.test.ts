// POST /mcp/<token>: the MCP Streamable HTTP transport, stateless (product-notes "MCP"; MCP
// basic/transports, lifecycle, server/tools). The handshake (initialize with version negotiation,
// notifications/initialized → 202 bare), tools/list with JSON Schema 2020-12 inputs, ping, the
// JSON-RPC errors (-32700, -32600, -32601, -32602), batches (2025-03-26 only), the protocol-version
// header, GET/DELETE 405, and the house envelope for 401 / 403 / 415 / 429 (a batch's messages each
// count against the token's rate limit).
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { revokeMcpToken } from '../../../src/domain/mcp/revoke-mcp-token.ts';
import { newProject, useHarness } from '../../support/harness.ts';
import { callTool, mcpToken, rpc, VERSION } from './mcp-client.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

const TOOL_NAMES = [
  'get_project_info',
  'get_project_stats',
  'list_campaigns',
  'list_events',
  'lookup_attribution',
  'get_billing_usage',
];

async function tokenOfNewProject() {
  const p = await newProject(h().deps);
  return { p, token: await mcpToken(h().deps, p) };
}

const initialize = (protocolVersion: unknown, id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'vitest', version: '1' } },
});

describe('the handshake', () => {
  it('when a client initializes at 2025-11-25, then the same version, capabilities {tools: {}} and serverInfo', async () => {
    const { p, token } = await tokenOfNewProject();

    const res = await rpc(h().app, token, initialize('2025-11-25'), { 'mcp-protocol-version': '' });

    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['mcp-session-id']).toBeUndefined();
    expect(res.json()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        protocolVersion: '2025-11-25',
        capabilities: { tools: {} },
        serverInfo: { name: 'attribution-service-mcp', title: 'Attribution service (read-only)', version: '1.0.0' },
        instructions: expect.stringContaining(p.project.id),
      },
    });
  });

  it.each(['2025-06-18', '2025-03-26', '2024-11-05'])('when a client asks for %s, then that version', async (v) => {
    const { token } = await tokenOfNewProject();

    const res = await rpc(h().app, token, initialize(v, 'init-1'));

    expect(res.json()).toMatchObject({ id: 'init-1', result: { protocolVersion: v } });
  });

  it('when a client asks for a version this server does not know, then the newest it supports', async () => {
    const { token } = await tokenOfNewProject();

    const res = await rpc(h().app, token, initialize('2099-01-01'), { 'mcp-protocol-version': '2099-01-01' });

    expect(res.statusCode).toBe(200);
    expect(res.json().result.protocolVersion).toBe('2025-11-25');
  });

  it('when protocolVersion is missing, then -32602 Invalid params', async () => {
    const { token } = await tokenOfNewProject();

    const res = await rpc(h().app, token, { jsonrpc: '2.0', id: 7, method: 'initialize', params: {} });

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32602, message: 'Invalid params', data: { reason: 'protocolVersion must be a string' } },
    });
  });

  it('when notifications/initialized (or any notification) is sent, then 202 with no body', async () => {
    const { token } = await tokenOfNewProject();

    const initialized = await rpc(h().app, token, { jsonrpc: '2.0', method: 'notifications/initialized' });
    const cancelled = await rpc(h().app, token, {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 3 },
    });
    const response = await rpc(h().app, token, { jsonrpc: '2.0', id: 9, result: {} });

    for (const res of [initialized, cancelled, response]) {
      expect(res.statusCode).toBe(202);
      expect(res.body).toBe('');
    }
  });

  it('when ping is sent, then an empty result', async () => {
    const { token } = await tokenOfNewProject();

    const res = await rpc(h().app, token, { jsonrpc: '2.0', id: 'p', method: 'ping' });

    expect(res.json()).toEqual({ jsonrpc: '2.0', id: 'p', result: {} });
  });

  it('when tools/list is sent without an initialize first (stateless), then the six read-only tools with 2020-12 input schemas', async () => {
    const { token } = await tokenOfNewProject();

    const res = await rpc(h().app, token, { jsonrpc: '2.0', id: 2, method: 'tools/list' });

    expect(res.statusCode).toBe(200);
    const tools = res.json().result.tools as {
      name: string;
      description: string;
      inputSchema: Record<string, unknown>;
      annotations: Record<string, unknown>;
    }[];
    expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES);
    const ajv = new Ajv2020({ strict: true, strictRequired: false });
    for (const t of tools) {
      expect(t.description.length, t.name).toBeGreaterThan(20);
      expect(t.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(t.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
      expect(() => ajv.compile(t.inputSchema), t.name).not.toThrow();
    }
    const list = tools.find((t) => t.name === 'list_campaigns');
    const validate = ajv.compile(list?.inputSchema ?? {});
    expect(validate({ page: 2, limit: 10, filter: 'ACTIVE' })).toBe(true);
    expect(validate({ limit: 1001 })).toBe(false);
    expect(validate({ nonsense: true })).toBe(false);
  });
});

describe('JSON-RPC errors', () => {
  it('when the body is not JSON, then 400 with -32700 Parse error and id null', async () => {
    const { token } = await tokenOfNewProject();

    for (const body of ['{"jsonrpc": "2.0", "id": 1,', '', '{"__proto__": {"x": 1}}']) {
      const res = await rpc(h().app, token, body);

      expect(res.statusCode, body).toBe(400);
      expect(res.json(), body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    }
  });

  it('when the message is not a JSON-RPC 2.0 request, then 400 with -32600 Invalid Request', async () => {
    const { token } = await tokenOfNewProject();
    const cases: [unknown, string | number | null][] = [
      [42, null],
      [null, null], // valid JSON (so not -32700) that is no request
      [{ id: 1, method: 'ping' }, 1],
      [{ jsonrpc: '1.0', id: 'a', method: 'ping' }, 'a'],
      [{ jsonrpc: '2.0', id: null, method: 'ping' }, null],
      [{ jsonrpc: '2.0', id: 1.5, method: 'ping' }, null],
      [{ jsonrpc: '2.0', id: 3, method: 'ping', params: [1, 2] }, 3],
      [{ jsonrpc: '2.0', id: 4 }, 4],
    ];
    for (const [body, id] of cases) {
      const res = await rpc(h().app, token, body);

      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json(), JSON.stringify(body)).toEqual({
        jsonrpc: '2.0',
        id,
        error: { code: -32600, message: 'Invalid Request' },
      });
    }
  });

  it('when the method is unknown, then -32601 Method not found with the id', async () => {
    const { token } = await tokenOfNewProject();

    const res = await rpc(h().app, token, { jsonrpc: '2.0', id: 5, method: 'resources/list' });

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ jsonrpc: '2.0', id: 5, error: { code: -32601, message: 'Method not found' } });
  });

  it('when tools/call names no tool of ours or has malformed params, then -32602', async () => {
    const { token } = await tokenOfNewProject();
    const call = (params: Record<string, unknown>) =>
      rpc(h().app, token, { jsonrpc: '2.0', id: 6, method: 'tools/call', params });

    const unknown = await call({ name: 'drop_tables', arguments: {} });
    const noName = await call({ arguments: {} });
    const badArgs = await call({ name: 'list_campaigns', arguments: [1] });

    expect(unknown.json()).toEqual({
      jsonrpc: '2.0',
      id: 6,
      error: { code: -32602, message: 'Unknown tool: drop_tables' },
    });
    expect(noName.json().error).toEqual({
      code: -32602,
      message: 'Invalid params',
      data: { reason: 'name must be a string' },
    });
    expect(badArgs.json().error).toEqual({
      code: -32602,
      message: 'Invalid params',
      data: { reason: 'arguments must be an object' },
    });
  });

  it('when tool arguments break the input schema, then a tool result with isError and the problem named', async () => {
    const { token } = await tokenOfNewProject();

    const wrongType = await callTool(h().app, token, 'list_campaigns', { limit: 'ten' });
    const extra = await callTool(h().app, token, 'get_project_info', { project_id: 'someone-else' });

    expect(wrongType.isError).toBe(true);
    expect(wrongType.data).toEqual({ msg: expect.stringMatching(/^Invalid arguments: limit: /), status: 400 });
    expect(wrongType.structured).toBeUndefined();
    expect(extra).toMatchObject({ isError: true, data: { status: 400 } });
    expect(extra.data.msg).toContain('project_id');
  });
});

describe('batches and the protocol-version header', () => {
  const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });

  it('when a batch comes at 2025-03-26 (or with no version header), then an array of the requests answers', async () => {
    const { token } = await tokenOfNewProject();
    const batch = [ping(1), { jsonrpc: '2.0', method: 'notifications/initialized' }, ping(2), { id: 3 }];

    const at0326 = await rpc(h().app, token, batch, { 'mcp-protocol-version': '2025-03-26' });
    const noHeader = await h().app.inject({
      method: 'POST',
      url: `/mcp/${token}`,
      headers: { 'content-type': 'application/json' },
      payload: batch,
    });

    for (const res of [at0326, noHeader]) {
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual([
        { jsonrpc: '2.0', id: 1, result: {} },
        { jsonrpc: '2.0', id: 2, result: {} },
        { jsonrpc: '2.0', id: 3, error: { code: -32600, message: 'Invalid Request' } },
      ]);
    }
  });

  it('when a batch holds only notifications, then 202; initialize inside a batch is refused', async () => {
    const { token } = await tokenOfNewProject();
    const v = { 'mcp-protocol-version': '2025-03-26' };

    const notes = await rpc(h().app, token, [{ jsonrpc: '2.0', method: 'notifications/initialized' }], v);
    const withInit = await rpc(h().app, token, [initialize('2025-03-26', 1)], v);

    expect(notes.statusCode).toBe(202);
    expect(notes.body).toBe('');
    expect(withInit.json()).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32600, message: 'Invalid Request: initialize must not be part of a batch.' },
      },
    ]);
  });

  it('when a batch comes at 2025-06-18 or later, or is empty or over 10, then 400 -32600', async () => {
    const { token } = await tokenOfNewProject();

    const at0618 = await rpc(h().app, token, [ping(1)], { 'mcp-protocol-version': '2025-06-18' });
    const atLatest = await rpc(h().app, token, [ping(1)]);
    const empty = await rpc(h().app, token, [], { 'mcp-protocol-version': '2025-03-26' });
    const big = await rpc(
      h().app,
      token,
      Array.from({ length: 11 }, (_, i) => ping(i)),
      { 'mcp-protocol-version': '2025-03-26' },
    );

    expect(at0618.statusCode).toBe(400);
    expect(at0618.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message: 'Invalid Request: protocol version 2025-06-18 takes one JSON-RPC message per POST, not a batch.',
      },
    });
    expect(atLatest.json().error.message).toContain(VERSION);
    for (const res of [empty, big]) {
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } });
    }
  });

  it('when a later request names an unsupported MCP-Protocol-Version, then 400', async () => {
    const { token } = await tokenOfNewProject();

    const res = await rpc(h().app, token, ping(1), { 'mcp-protocol-version': '1999-01-01' });

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: "Bad Request: unsupported MCP-Protocol-Version '1999-01-01'." },
    });
  });
});

describe('HTTP answers in the house envelope', () => {
  it('when the endpoint is asked with GET or DELETE, then 405 with Allow: POST (no stream, no session)', async () => {
    const { token } = await tokenOfNewProject();

    for (const method of ['GET', 'DELETE'] as const) {
      const res = await h().app.inject({ method, url: `/mcp/${token}`, headers: { accept: 'text/event-stream' } });

      expect(res.statusCode, method).toBe(405);
      expect(res.headers.allow).toBe('POST');
      expect(res.json()).toEqual({
        msg: 'Method not allowed. POST JSON-RPC messages to this MCP endpoint; it opens no event stream.',
        status: 405,
      });
    }
  });

  it('when the token is unknown, malformed, empty or revoked, then 401 `MCP token invalid or revoked.`', async () => {
    const { p, token } = await tokenOfNewProject();
    const revoked = await mcpToken(h().deps, p, 'to revoke');
    const [live] = await h().deps.sql<{ id: number }[]>`
      SELECT id FROM mcp_tokens WHERE project_id = ${p.project.id} AND name = 'to revoke'`;
    await revokeMcpToken(h().deps, p.project.id, String(live?.id));

    for (const t of [`${token}x`, 'mcp_short', p.serverKey, p.token, 'x'.repeat(400), revoked, '']) {
      const res = await rpc(h().app, t, { jsonrpc: '2.0', id: 1, method: 'ping' });

      expect(res.statusCode, t).toBe(401);
      expect(res.json()).toEqual({ msg: 'MCP token invalid or revoked.', status: 401 });
    }
    expect((await rpc(h().app, token, { jsonrpc: '2.0', id: 1, method: 'ping' })).statusCode).toBe(200);
  });

  it('when an Origin header names another host, then 403; our own host or none, then 200', async () => {
    const { token } = await tokenOfNewProject();
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };

    const foreign = await rpc(h().app, token, ping, { origin: 'https://evil.example' });
    const opaque = await rpc(h().app, token, ping, { origin: 'null' });
    const publicUrl = await rpc(h().app, token, ping, { origin: 'https://attr.test' });
    const own = await rpc(h().app, token, ping, { origin: 'http://mcp.example.com', host: 'mcp.example.com' });

    for (const res of [foreign, opaque]) {
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ msg: 'Origin not allowed for the MCP endpoint.', status: 403 });
    }
    expect(publicUrl.statusCode).toBe(200);
    expect(own.statusCode).toBe(200);
  });

  it('when the body is sent as text/plain, then 415 in the house envelope', async () => {
    const { token } = await tokenOfNewProject();

    const res = await rpc(h().app, token, '{"jsonrpc":"2.0","id":1,"method":"ping"}', { 'content-type': 'text/plain' });

    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({ msg: 'Unsupported content type. Send application/json.', status: 415 });
  });
});

describe('rate limit', () => {
  const limited = useHarness({ env: { RATE_LIMIT_DATA_PER_SECOND: '2', RATE_LIMIT_IP_PER_SECOND: '1000' } });

  it('when a token sends more than the data family allows in a second, then 429 with Retry-After: 1; another token of the project is not counted', async () => {
    const { deps, app } = limited();
    const p = await newProject(deps);
    const [a, b] = [await mcpToken(deps, p, 'a'), await mcpToken(deps, p, 'b')];
    const real = deps.now;
    const t0 = Math.floor(real() / 1000) * 1000 + 5000;
    deps.now = () => t0;
    try {
      const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
      const statuses = [];
      for (let i = 0; i < 3; i++) {
        statuses.push((await rpc(app, a, ping)).statusCode);
      }
      const third = await rpc(app, a, ping);
      const other = await rpc(app, b, ping);

      expect(statuses).toEqual([200, 200, 429]);
      expect(third.headers['retry-after']).toBe('1');
      expect(third.json()).toEqual({ msg: 'Rate limit exceeded. Please try again later.', status: 429 });
      expect(other.statusCode).toBe(200);
    } finally {
      deps.now = real;
    }
  });

  it('when a batch comes at 2025-03-26, then each of its messages counts; one past the budget is refused whole with the single POST’s 429', async () => {
    const { deps, app } = limited();
    const p = await newProject(deps);
    const [a, b] = [await mcpToken(deps, p, 'a'), await mcpToken(deps, p, 'b')];
    const v = { 'mcp-protocol-version': '2025-03-26' };
    const batch = (n: number) => Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' }));
    const real = deps.now;
    const t0 = Math.floor(real() / 1000) * 1000 + 5000;
    deps.now = () => t0;
    try {
      const two = await rpc(app, a, batch(2), v);
      const after = await rpc(app, a, batch(1)[0], v);
      const three = await rpc(app, b, batch(3), v);

      expect(two.statusCode).toBe(200);
      expect(two.json()).toHaveLength(2);
      expect(after.statusCode).toBe(429);
      expect(three.statusCode).toBe(429);
      expect(three.headers['retry-after']).toBe('1');
      expect(three.json()).toEqual({ msg: 'Rate limit exceeded. Please try again later.', status: 429 });
    } finally {
      deps.now = real;
    }
  });
});
