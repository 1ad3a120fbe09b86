// JSON-RPC-shaped garbage on POST /mcp/<token> (catalog §4c, §2 I8; README "MCP server"): single
// messages and batches whose members are each well formed, garbage or missing, under any
// MCP-Protocol-Version header; odd Origin, Accept and Content-Type headers; every tool with every
// string argument holding NUL, a lone surrogate or 1M characters; and a full batch of the heaviest
// tools. Oracle: a documented status (200, 202, 400; 403 for a foreign Origin; 415), never 5xx,
// under 1 s, and the answer a JSON-RPC one as /openapi.json documents it: no -32603 (internal
// error), a tool failure a result with isError and a 4xx envelope.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { protocolHeader, rpcBody, TOOL_NAMES } from '../support/bad-input-garbage.ts';
import { check, expectAlive, property, type Res, Tally } from '../support/bad-input-kit.ts';
import { type Fixture, makeFixture, useBadInputHarness } from '../support/bad-input-routes.ts';
import { MCP_HEADERS } from '../support/bad-input-surfaces.ts';
import { MILLION } from '../support/bad-input-values.ts';
import { answerProblems, fetchDoc, type OpenApiDoc } from '../support/openapi.ts';

const h = useBadInputHarness();
const tally = new Tally('mcp.test.ts');
let x: Fixture;
let doc: OpenApiDoc;

beforeAll(async () => {
  x = await makeFixture(h());
  doc = await fetchDoc(h().app);
});
afterAll(() => {
  console.log(tally.line());
});

const RPC_CODES = [-32700, -32600, -32601, -32602];

type Answer = { jsonrpc?: unknown; id?: unknown; result?: unknown; error?: { code?: unknown } };

/** What is wrong with one JSON-RPC answer: an internal error, or a tool result that is not a result. */
function answerShape(a: Answer): string[] {
  if (a.jsonrpc !== '2.0' || 'result' in a === 'error' in a) {
    return [`not a JSON-RPC answer: ${JSON.stringify(a).slice(0, 200)}`];
  }
  if (a.error) {
    return RPC_CODES.includes(a.error.code as number) ? [] : [`error code ${String(a.error.code)}`];
  }
  const r = a.result as { content?: { type: string; text: string }[]; isError?: boolean };
  if (r.isError === true) {
    const env = JSON.parse(r.content?.[0]?.text ?? '{}') as { msg?: unknown; status?: number };
    return typeof env.msg === 'string' && (env.status ?? 500) < 500 ? [] : [`tool error ${JSON.stringify(env)}`];
  }
  return [];
}

/** The oracle's extra half for MCP: the document's schema, and JSON-RPC answers of a known kind. */
function expectRpcAnswer(res: Res, label: string): void {
  // 202 has no body (the document's schema for it is `never`).
  const problems =
    res.statusCode === 202 ? [res.body].filter(Boolean) : answerProblems(doc, 'POST', '/mcp/{token}', res);
  if (res.statusCode === 200 || res.statusCode === 400) {
    const body = res.json() as Answer | Answer[];
    problems.push(...(Array.isArray(body) ? body : [body]).flatMap(answerShape));
  }
  expect(problems, `${label}: ${res.body.slice(0, 300)}`).toEqual([]);
}

function post(body: string, headers: Record<string, string | undefined> = {}, label = 'rpc'): Promise<Res> {
  const all = { host: 'attr.test', 'content-type': 'application/json', ...MCP_HEADERS, ...headers };
  const sent = Object.fromEntries(Object.entries(all).filter(([, v]) => v !== undefined)) as Record<string, string>;
  return check(
    h().app,
    tally,
    { method: 'POST', url: `/mcp/${x.mcpToken}`, headers: sent, payload: body, label: `POST /mcp [${label}]` },
    [200, 202, 400, 403, 413, 415],
  );
}

const callOf = (name: string, args: unknown, id: unknown = 1) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

describe('JSON-RPC-shaped garbage', () => {
  it('when a message or batch has any member bad, missing or garbage, under any protocol header, then a JSON-RPC answer of a documented status', async () => {
    await property(
      fc.record({ body: rpcBody, version: protocolHeader }),
      async ({ body, version }) => {
        const res = await post(body, { 'mcp-protocol-version': version }, `fuzz ${version ?? '-'}`);
        expect([200, 202, 400], body.slice(0, 300)).toContain(res.statusCode);
        expectRpcAnswer(res, body.slice(0, 300));
      },
      200,
    );
    await expectAlive(h().app);
  });

  it('when a batch at 2025-03-26 holds garbage beside good requests, then each request answers in order, under 1 s', async () => {
    await property(
      fc.array(fc.oneof(rpcBody, fc.constant(callOf('get_project_info', {}, 'good'))), { minLength: 1, maxLength: 10 }),
      async (members) => {
        const res = await post(`[${members.join(',')}]`, { 'mcp-protocol-version': '2025-03-26' }, 'batch');
        expectRpcAnswer(res, 'batch');
        if (res.statusCode === 200 && members.includes(callOf('get_project_info', {}, 'good'))) {
          expect((res.json() as Answer[]).some((a) => a.id === 'good' && 'result' in a)).toBe(true);
        }
      },
    );
  });
});

describe('every tool, every string argument', () => {
  const STRING_ARGS: Record<string, string[]> = {
    get_project_stats: ['from', 'to'],
    list_campaigns: ['filter', 'channel', 'domain', 'link'],
    list_events: ['from', 'to'],
    lookup_attribution: ['user_id', 'device_identifier', 'install_instance_id'],
    get_billing_usage: ['month', 'from', 'to'],
  };
  const VALUES = [
    '\u0000',
    'a\u0000b',
    `${'x'.repeat(10)}\u0000`,
    '\ud800',
    'x\udc00y',
    '\u202eevil',
    '👩‍👩‍👧‍👦',
    "'; DROP TABLE projects;--",
    '%',
    '_',
    '2024-02-30',
    '0000-01-01',
    '9999-12-31',
    '2024-01-01\u0000',
    ' ',
    '__proto__',
    'a'.repeat(257),
  ];

  it.each(Object.entries(STRING_ARGS))(
    'when %s gets NUL, lone surrogates, SQL, LIKE wildcards or odd dates in each argument, then a result or a tool error, never 5xx',
    async (tool, keys) => {
      for (const key of keys) {
        for (const value of VALUES) {
          const res = await post(callOf(tool, { [key]: value }), {}, `${tool}.${key}`);
          expect(res.statusCode, `${tool}.${key}=${JSON.stringify(value)}: ${res.body}`).toBe(200);
          expectRpcAnswer(res, `${tool}.${key}`);
        }
      }
    },
  );

  it('when lookup_attribution gets an id holding NUL, then it is read as get-attribution-result reads it (not given), never a 500', async () => {
    // GET /api/v1/get-attribution-result reads an id with NUL as absent; the tool passed it to
    // Postgres, which cannot hold NUL in text: 500 Internal server error.
    const alone = await post(callOf('lookup_attribution', { user_id: '\u0000' }), {}, 'NUL user');
    const beside = await post(
      callOf('lookup_attribution', { user_id: `${x.userId}\u0000`, install_instance_id: x.iid }),
      {},
      'NUL user, install id',
    );
    const install = await post(callOf('lookup_attribution', { install_instance_id: '\u0000' }), {}, 'NUL install');

    const text = (res: Res) =>
      JSON.parse((res.json() as { result: { content: { text: string }[] } }).result.content[0]?.text ?? '{}');
    expect(text(alone)).toEqual({ msg: 'Give one of user_id, device_identifier or install_instance_id.', status: 400 });
    expect(text(beside)).toMatchObject({ found: true, pending: false });
    expect(text(install)).toEqual({
      msg: 'Give one of user_id, device_identifier or install_instance_id.',
      status: 400,
    });
  });

  it('when lookup_attribution gets the install id in upper case, then the same install (as attribution-data reads it)', async () => {
    // catalog §4c: one install id in upper and lower case is one install; attribution-data lower-cases a UUID.
    const lower = await post(callOf('lookup_attribution', { install_instance_id: x.iid }), {}, 'iid');
    const upper = await post(
      callOf('lookup_attribution', { install_instance_id: ` ${x.iid.toUpperCase()} ` }),
      {},
      'IID',
    );

    expect(lower.statusCode).toBe(200);
    expect(upper.json().result).toEqual(lower.json().result);
    expect(upper.json().result.structuredContent).toMatchObject({ found: true });
  });

  it('when every tool gets a 1M-character argument, then 413 (over the body cap) or a tool error', async () => {
    for (const tool of TOOL_NAMES) {
      const res = await post(callOf(tool, { user_id: MILLION, from: MILLION }), {}, `${tool} 1M`);
      expect([200, 413]).toContain(res.statusCode);
      expectRpcAnswer(res, tool);
    }
  });

  it('when a batch of 10 holds the heaviest tools over all time, then it answers in under 1 s', async () => {
    const heavy = ['get_project_stats', 'list_events', 'get_billing_usage', 'list_campaigns', 'lookup_attribution'];
    const members = Array.from({ length: 10 }, (_, i) =>
      callOf(
        heavy[i % heavy.length] as string,
        heavy[i % heavy.length] === 'lookup_attribution' ? { user_id: x.userId } : {},
        i,
      ),
    );

    const res = await post(`[${members.join(',')}]`, { 'mcp-protocol-version': '2025-03-26' }, 'heavy batch');

    expect(res.statusCode).toBe(200);
    expect((res.json() as Answer[]).map((a) => a.id)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expectRpcAnswer(res, 'heavy batch');
  });
});

describe('headers', () => {
  const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
  const headerText = fc.oneof(
    fc.constantFrom('', ' ', 'null', '*', 'https://attr.test', 'http://attr.test:99999', 'file://', 'https://'),
    fc.string({ unit: 'grapheme-ascii', maxLength: 60 }),
    fc.webUrl().map((u) => u.slice(0, 200)),
  );

  it('when Origin, Accept, Content-Type or MCP-Protocol-Version hold any text, then 200, 400, 403 or 415, never 5xx', async () => {
    await property(
      fc.record({
        origin: fc.option(headerText, { nil: undefined }),
        accept: fc.option(
          fc.oneof(fc.constantFrom('text/event-stream', '*/*', 'application/json;q=0', ''), headerText),
          { nil: undefined },
        ),
        type: fc.oneof(
          fc.constantFrom(
            'application/json',
            'application/json; charset=utf-8',
            'APPLICATION/JSON',
            'application/json-rpc',
            'text/plain',
            'application/x-www-form-urlencoded',
          ),
          headerText,
        ),
        version: protocolHeader,
      }),
      async ({ origin, accept, type, version }) => {
        const res = await post(
          ping,
          { origin, accept, 'content-type': type, 'mcp-protocol-version': version },
          `headers ${type}`,
        );
        expectRpcAnswer(res, `headers ${type}`);
      },
    );
    await expectAlive(h().app);
  });
});
