// One pass over a real socket (catalog §4c; §2 I8), since app.inject skips Node's HTTP parser and
// the body-size checks it feeds: the app listens on 127.0.0.1:0 and gets raw bytes through `net`
// (bad and conflicting Content-Length, Transfer-Encoding tricks, broken chunks, bad header bytes,
// partial and slow bodies) and fetch (1 MiB + 1 bodies, deep nesting). Oracle: a status line from
// the documented set (Node's own 400 / 408 / 413 / 431 included), never 5xx, each answer under
// 1 s (a stalled body: within the request timeout), and /healthz still answers afterwards. The MCP
// endpoint and the RevenueCat webhook get the same pass with their own credentials.

import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAlive, LATENCY_BUDGET_MS, Tally } from '../support/bad-input-kit.ts';
import { type Fixture, makeFixture } from '../support/bad-input-routes.ts';
import { nested, nestedObject } from '../support/bad-input-values.ts';
import { useClientHarness } from '../support/client.ts';

const TIMEOUT_MS = 1500;
const h = useClientHarness({ REQUEST_TIMEOUT_MS: String(TIMEOUT_MS), SECRETS_KEY: 'cd'.repeat(32) });
const tally = new Tally('socket.test.ts', true);
let x: Fixture;
let port = 0;

beforeAll(async () => {
  x = await makeFixture(h());
  await h().app.listen({ host: '127.0.0.1', port: 0 });
  port = (h().app.server.address() as AddressInfo).port;
});
afterAll(() => {
  console.log(tally.line());
});

type Raw = { status: number; head: string; ms: number };

/** Writes `chunks` (waiting `gapMs` between them) and reads until the server closes the socket. */
function raw(chunks: (string | Buffer)[], opts: { gapMs?: number; waitMs?: number } = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const socket = connect(port, '127.0.0.1');
    const got: Buffer[] = [];
    const limit = setTimeout(() => socket.destroy(), opts.waitMs ?? TIMEOUT_MS * 3);
    socket.on('data', (d) => got.push(d));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(limit);
      const text = Buffer.concat(got).toString('latin1');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      resolve({ status: m ? Number(m[1]) : 0, head: text.slice(0, 200), ms: performance.now() - t0 });
    });
    socket.on('connect', async () => {
      try {
        for (const c of chunks) {
          if (socket.destroyed) {
            return;
          }
          socket.write(c);
          if (opts.gapMs) {
            await new Promise((r) => setTimeout(r, opts.gapMs));
          }
        }
      } catch (err) {
        reject(err);
      }
    });
  });
}

function record(r: Raw, label: string, allowed: number[], budgetMs = LATENCY_BUDGET_MS): void {
  tally.cases += 1;
  tally.statuses.set(r.status, (tally.statuses.get(r.status) ?? 0) + 1);
  // Cases that wait out the request timeout on purpose do not count towards the max latency.
  if (budgetMs === LATENCY_BUDGET_MS && r.ms > tally.maxMs) {
    tally.maxMs = r.ms;
    tally.slowest = label;
  }
  if (r.status >= 500) {
    tally.fivexx += 1;
  }
  expect(allowed, `${label}: ${r.head}`).toContain(r.status);
  expect(r.ms, `${label} took ${Math.round(r.ms)} ms`).toBeLessThan(budgetMs);
}

const head = (path: string, headers: Record<string, string>) =>
  `POST ${path} HTTP/1.1\r\nHost: attr.test\r\nConnection: close\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;

const CLIENT = '/api/client/capture-event';
const V1 = '/api/v1/create-campaign';
const SPEND = '/api/v1/spend';
const json = { 'content-type': 'application/json' };

describe('raw HTTP through Node’s parser', () => {
  it('when Content-Length is bad, doubled or fights Transfer-Encoding, then 400 (never 5xx)', async () => {
    const body = JSON.stringify({ token: x.p.token, event_name: 'e', install_instance_id: x.iid });
    const cases: [string, string[]][] = [
      ['letters', [head(CLIENT, { ...json, 'content-length': 'abc' }), body]],
      ['negative', [head(CLIENT, { ...json, 'content-length': '-1' }), body]],
      ['huge', [head(CLIENT, { ...json, 'content-length': '99999999999999999999' }), body]],
      [
        'two different',
        [`${head(CLIENT, { ...json, 'content-length': '2' }).slice(0, -2)}content-length: 3\r\n\r\n`, '{}'],
      ],
      [
        'with chunked',
        [head(CLIENT, { ...json, 'content-length': '2', 'transfer-encoding': 'chunked' }), '2\r\n{}\r\n0\r\n\r\n'],
      ],
      ['bad chunk size', [head(CLIENT, { ...json, 'transfer-encoding': 'chunked' }), 'zz\r\n{}\r\n0\r\n\r\n']],
      ['NUL in a header', [head(CLIENT, { ...json, 'x-a': 'a\u0000b', 'content-length': '2' }), '{}']],
      ['bare LF', ['POST /api/client/init HTTP/1.1\nHost: a\n\n']],
      ['garbage request line', ['\u0000\u0001\u0002 / HTTP/9.9\r\n\r\n']],
      ['header over 16 KiB', [head(CLIENT, { 'x-big': 'a'.repeat(20_000) })]],
    ];
    for (const [label, chunks] of cases) {
      record(await raw(chunks), label, [400, 413, 431]);
    }
    // Content-Length shorter than the body: the request is read as declared (the rest is junk
    // that follows it); longer than the body: the server waits, then times the request out.
    record(await raw([head(CLIENT, { ...json, 'content-length': '5' }), body]), 'short length', [400]);
    record(
      await raw([head(CLIENT, { ...json, 'content-length': '5000' }), body]),
      'long length',
      [400, 408, 0],
      TIMEOUT_MS * 3,
    );
    await expectAlive(h().app);
  });

  it('when a body arrives slowly, or stops half way, then a normal answer, or a timeout without a 5xx', async () => {
    const body = JSON.stringify({
      token: x.p.token,
      platform: 'ANDROID',
      install_instance_id: x.iid,
      event_name: 'slow',
    });
    const bytes = [...Buffer.from(body)].map((b) => Buffer.from([b]));
    // 1 byte per 5 ms: slow but steady completes (its time is the client's, not the server's).
    const slow = await raw([head(CLIENT, { ...json, 'content-length': String(body.length) }), ...bytes], { gapMs: 5 });
    record(slow, 'slow body', [200], TIMEOUT_MS * 3);
    // Half a body, then silence: the connection is cut (408 or closed) within the timeout.
    const t0 = performance.now();
    const stalled = raw([head(CLIENT, { ...json, 'content-length': String(body.length) }), body.slice(0, 20)]);
    // Meanwhile the app keeps answering others quickly.
    const other = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(other.status).toBe(200);
    expect(performance.now() - t0).toBeLessThan(LATENCY_BUDGET_MS);
    record(await stalled, 'stalled body', [408, 400, 0], TIMEOUT_MS * 3);
  });
});

describe('sizes and nesting over fetch', () => {
  async function post(path: string, body: string | Buffer, headers: Record<string, string> = {}) {
    const t0 = performance.now();
    const res = await fetch(`http://127.0.0.1:${port}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(path.startsWith('/api/v1') ? x.p.headers : {}), ...headers },
      body,
    });
    const text = await res.text();
    return { status: res.status, head: text.slice(0, 200), ms: performance.now() - t0 };
  }

  it('when a body is 1 MiB + 1 (declared, or chunked without a length), then 413 on client and v1 routes', async () => {
    const big = `{"a":"${'a'.repeat(1024 * 1024 - 7)}"}`;
    expect(Buffer.byteLength(big)).toBe(1024 * 1024 + 1);
    for (const path of [CLIENT, '/api/client/init', V1, '/api/v1/campaigns/x']) {
      record(await post(path, big), `1 MiB + 1 ${path}`, [413]);
    }
    // Chunked (no Content-Length): fetch streams a ReadableStream body.
    const stream = new ReadableStream({
      start(c) {
        for (let i = 0; i < 17; i++) {
          c.enqueue(new TextEncoder().encode('a'.repeat(64 * 1024)));
        }
        c.close();
      },
    });
    const t0 = performance.now();
    const res = await fetch(`http://127.0.0.1:${port}${CLIENT}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    await res.text();
    record({ status: res.status, head: '', ms: performance.now() - t0 }, 'chunked 1 MiB + 1', [413]);
  });

  it('when JSON nests 10 / 1k / 100k levels, then 400 or an ordinary answer, never 5xx', async () => {
    for (const depth of [10, 1000, 100_000]) {
      for (const [path, allowed] of [
        [CLIENT, [200, 400, 413]],
        [V1, [400, 413]],
        [SPEND, [400]],
      ] as [string, number[]][]) {
        record(await post(path, nested(depth)), `${depth} arrays ${path}`, allowed);
        record(await post(path, nestedObject(depth)), `${depth} objects ${path}`, allowed);
        const inField = `{"token":"${x.p.token}","install_instance_id":"${x.iid}","event_name":"n","rows":${nested(depth)},"event_data":${nestedObject(Math.min(depth, 10_000))}}`;
        record(await post(path, inField), `${depth} in a field ${path}`, [200, 400, 413]);
      }
    }
    await expectAlive(h().app);
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(res.status).toBe(200);
  });
});

describe('the MCP endpoint and the RevenueCat webhook over a real socket', () => {
  // Each surface with its own credential: the MCP token in the path, the RevenueCat token in Authorization.
  const surfaces = () =>
    [
      ['MCP', `/mcp/${x.mcpToken}`, { 'mcp-protocol-version': '2025-11-25', accept: 'application/json' }],
      ['RevenueCat', '/webhook/revenuecat', { authorization: `Bearer ${x.rcToken}` }],
    ] as [string, string, Record<string, string>][];
  const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });

  it('when Content-Length is bad, doubled or fights Transfer-Encoding, then 400 (never 5xx)', async () => {
    for (const [name, path, auth] of surfaces()) {
      const h0 = (headers: Record<string, string>) => head(path, { ...json, ...auth, ...headers });
      const cases: [string, string[]][] = [
        ['letters', [h0({ 'content-length': 'abc' }), ping]],
        ['negative', [h0({ 'content-length': '-1' }), ping]],
        ['huge', [h0({ 'content-length': '99999999999999999999' }), ping]],
        ['two different', [`${h0({ 'content-length': '2' }).slice(0, -2)}content-length: 3\r\n\r\n`, '{}']],
        ['with chunked', [h0({ 'content-length': '2', 'transfer-encoding': 'chunked' }), '2\r\n{}\r\n0\r\n\r\n']],
        ['bad chunk size', [h0({ 'transfer-encoding': 'chunked' }), 'zz\r\n{}\r\n0\r\n\r\n']],
        ['NUL in a header', [h0({ 'x-a': 'a\u0000b', 'content-length': '2' }), '{}']],
        ['header over 16 KiB', [h0({ 'x-big': 'a'.repeat(20_000) })]],
      ];
      for (const [label, chunks] of cases) {
        record(await raw(chunks), `${name} ${label}`, [400, 413, 431]);
      }
      // Shorter than the body: the request is read as declared (5 bytes of JSON: unreadable).
      record(await raw([h0({ 'content-length': '5' }), ping]), `${name} short length`, [400]);
    }
    await expectAlive(h().app);
  });

  it('when bodies are 1 MiB + 1 or nest 10 / 1k / 100k levels, then 413, 400 or a JSON-RPC answer, never 5xx', async () => {
    const big = `{"a":"${'a'.repeat(1024 * 1024 - 7)}"}`;
    for (const [name, path, auth] of surfaces()) {
      const send = async (body: string) => {
        const t0 = performance.now();
        const res = await fetch(`http://127.0.0.1:${port}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...auth },
          body,
        });
        const text = await res.text();
        return { status: res.status, head: text.slice(0, 200), ms: performance.now() - t0 };
      };
      record(await send(big), `${name} 1 MiB + 1`, [413]);
      // MCP reads an array as a batch (each member an Invalid Request), so 200 is its answer there;
      // 100k objects are over the 256 KiB body cap.
      const allowed = name === 'MCP' ? [200, 400, 413] : [400, 413];
      for (const depth of [10, 1000, 100_000]) {
        record(await send(nested(depth)), `${name} ${depth} arrays`, allowed);
        record(await send(nestedObject(depth)), `${name} ${depth} objects`, allowed);
        const inField =
          name === 'MCP'
            ? `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_campaigns","arguments":${nestedObject(Math.min(depth, 10_000))}}}`
            : `{"event":{"type":"INITIAL_PURCHASE","id":"deep","aliases":${nested(depth)}}}`;
        record(await send(inField), `${name} ${depth} in a field`, [200, 400, 413]);
      }
    }
    await expectAlive(h().app);
  });

  it('when a body arrives slowly, or with a wrong token and 1 MiB + 1, then a normal answer or 401, never 5xx', async () => {
    for (const [name, path, auth] of surfaces()) {
      const body =
        name === 'MCP' ? ping : JSON.stringify({ event: { type: 'TEST', id: 'slow', app_user_id: x.userId } });
      const bytes = [...Buffer.from(body)].map((b) => Buffer.from([b]));
      const slow = await raw([head(path, { ...json, ...auth, 'content-length': String(body.length) }), ...bytes], {
        gapMs: 5,
      });
      record(slow, `${name} slow body`, [200], TIMEOUT_MS * 3);
    }
    // The webhook's token is checked before the body is read: a wrong one is 401, however big the body.
    const big = `{"a":"${'a'.repeat(1024 * 1024 - 7)}"}`;
    const wrong = await raw([
      head('/webhook/revenuecat', { ...json, authorization: 'Bearer rc_wrong', 'content-length': String(big.length) }),
      big,
    ]);
    record(wrong, 'RevenueCat wrong token, 1 MiB + 1', [401]);
    await expectAlive(h().app);
  });
});
