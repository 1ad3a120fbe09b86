// Catalog §4d D10 (OWASP API5/7/8/10) over every route the app serves: no x-powered-by and no CORS
// grant on any answer (preflights included), unknown routes and methods answer 404 JSON, and when
// the stores fail under every route the 5xx body carries no stack, message or path. Against local
// fakes of Meta: a redirect is not followed (its target never hears from us), a 200 whose
// events_received does not match or is not JSON is retried, a huge answer is capped, and the Meta
// base URL comes from the environment only (graph_version from the API cannot change the host).
// test/http/conventions.test.ts has the single cases with test-only throwing routes.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import type { Deps } from '../../src/deps.ts';
import { sendMetaBatch } from '../../src/domain/deliveries/send-meta-batch.ts';
import { MSG } from '../../src/http/messages.ts';
import type { Delivery } from '../../src/store/postgres/deliveries.ts';
import { memoryRateLimitStore } from '../../src/store/redis/rate-limit-store.ts';
import { connectMeta, deliveryEnv } from '../support/deliveries.ts';
import { newProject, type TestProject, useHarness } from '../support/harness.ts';
import { figure, type ServedRoute, servedRoutes, Tally } from '../support/security-routes.ts';

const h = useHarness({ env: deliveryEnv() });

let routes: ServedRoute[] = [];
let p: TestProject;
beforeAll(async () => {
  routes = servedRoutes(h().app).filter((r) => r.url.startsWith('/api/'));
  p = await newProject(h().deps);
});

const hasBody = (method: string) => ['POST', 'PUT', 'PATCH'].includes(method);
const fill = (url: string) => url.replace(/:([a-z_]+)/g, 'x');

function request(r: ServedRoute, headers: Record<string, string>): InjectOptions {
  return {
    method: r.method as InjectOptions['method'],
    url: fill(r.url),
    headers,
    ...(hasBody(r.method) ? { payload: { token: p.token, platform: 'ANDROID' } } : {}),
  };
}

const exposing = (headers: Record<string, unknown>) =>
  Object.keys(headers).filter((k) => k === 'x-powered-by' || k.startsWith('access-control-'));

describe('D10 headers and unknown routes', () => {
  it('when every /api route is called cross-origin and preflighted, then no answer carries x-powered-by or a CORS grant', async () => {
    const tally = new Tally();
    const origin = { origin: 'https://evil.example' };
    for (const r of routes) {
      const res = await h().app.inject(request(r, { ...p.headers, ...origin }));
      tally.check(exposing(res.headers).length === 0, `${r.method} ${r.url}: ${exposing(res.headers).join(',')}`);
      const pre = await h().app.inject({
        method: 'OPTIONS',
        url: fill(r.url),
        headers: {
          ...origin,
          'access-control-request-method': r.method,
          'access-control-request-headers': 'service-key',
        },
      });
      tally.check(
        pre.statusCode === 404 && exposing(pre.headers).length === 0,
        `OPTIONS ${r.url}: ${pre.statusCode} ${exposing(pre.headers).join(',')}`,
      );
    }
    figure('D10 headers', { routes: routes.length, probes: tally.probes, exposing_answers: tally.bad });

    expect(tally.failures).toEqual([]);
  });

  it('when unknown /api paths or wrong methods are requested, then 404 JSON Route not found.', async () => {
    const tally = new Tally();
    const cases: [InjectOptions['method'], string][] = [
      ['GET', '/api/v1/nope'],
      ['GET', '/api/v1/'],
      ['GET', '/api/v1'],
      ['GET', '/api/v2/campaigns'],
      ['POST', '/api/client/nope'],
      ['GET', '/api/client/init'],
      ['DELETE', '/api/v1/create-campaign'],
      ['POST', '/api/v1/get-attribution-result'],
      ['PATCH', '/api/v1/reporting/campaigns'],
      ['GET', '/api/v1/campaigns/../../etc/passwd'],
      ['GET', '/api/v1/%2e%2e/%2e%2e/etc/passwd'],
      ['GET', '/api/v1/.env'],
      ['GET', '/api/v1/admin'],
    ];
    for (const [method, url] of cases) {
      const res = await h().app.inject({ method, url, headers: p.headers });
      const ok =
        res.statusCode === 404 &&
        String(res.headers['content-type']).startsWith('application/json') &&
        res.body === JSON.stringify({ msg: MSG.routeNotFound, status: 404 });
      tally.check(ok, `${method} ${url}: ${res.statusCode} ${res.body.slice(0, 80)}`);
    }
    figure('D10 unknown routes', { probes: tally.probes, not_404_json: tally.bad });

    expect(tally.failures).toEqual([]);
  });
});

/** A postgres.js stand-in whose every use throws an error full of internals. */
function explodingSql(): Deps['sql'] {
  const boom = () => {
    const err = new Error('connect ECONNREFUSED password=hunter2 at /srv/app/src/store/postgres/pool.ts:42');
    throw err;
  };
  const handler: ProxyHandler<() => void> = {
    apply: boom,
    get: (_t, prop) => (prop === 'then' ? undefined : new Proxy(() => {}, handler)),
  };
  return new Proxy(() => {}, handler) as unknown as Deps['sql'];
}

describe('D10 5xx bodies', () => {
  it('when Postgres fails under every /api route, then each answer is a bare 5xx envelope without internals', async () => {
    const deps: Deps = { ...h().deps, sql: explodingSql(), rateLimits: memoryRateLimitStore() };
    const app = await buildApp(deps);
    const tally = new Tally();
    let fivexx = 0;
    try {
      for (const r of routes.filter((x) => x.method !== 'HEAD')) {
        const res = await app.inject(request(r, p.headers));
        if (res.statusCode >= 500) {
          fivexx += 1;
          const bare = res.body === JSON.stringify({ msg: MSG.internalError, status: 500 }) || res.statusCode === 503;
          tally.check(
            bare && !/hunter2|ECONNREFUSED|\bat \/|\.ts:\d|stack|Error:/i.test(res.body),
            `${r.method} ${r.url}: ${res.statusCode} ${res.body.slice(0, 120)}`,
          );
        }
      }
    } finally {
      await app.close();
    }
    figure('D10 5xx bodies', { routes: routes.length, answers_5xx: fivexx, with_internals: tally.bad });

    expect(fivexx).toBeGreaterThan(20);
    expect(tally.failures).toEqual([]);
  });
});

type Fake = { url: string; hits: number; close: () => Promise<void> };

async function fakeServer(answer: (res: import('node:http').ServerResponse) => void): Promise<Fake> {
  const fake = { url: '', hits: 0, close: async () => {} };
  const server: Server = createServer((req, res) => {
    fake.hits += 1;
    req.resume();
    req.on('end', () => answer(res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return fake;
}

describe('D10 consuming Meta (API10)', () => {
  let target: Fake;
  const fakes: Fake[] = [];
  beforeAll(async () => {
    target = await fakeServer((res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"events_received":1}'),
    );
  });
  afterAll(async () => {
    for (const f of [target, ...fakes]) {
      await f?.close();
    }
  });

  const row = { payload: { event_name: 'Purchase', event_id: 'e1' } } as unknown as Delivery;

  async function sendVia(answer: (res: import('node:http').ServerResponse) => void) {
    const fake = await fakeServer(answer);
    fakes.push(fake);
    const deps = { ...h().deps, config: { ...h().deps.config, metaGraphBaseUrl: fake.url } };
    return { result: await sendMetaBatch(deps, p.project.id, [row]), fake };
  }

  it('when Meta redirects, answers a wrong count, non-JSON or a huge body, then nothing is followed or trusted', async () => {
    await connectMeta(h().deps, p);
    const tally = new Tally();
    const redirect302 = await sendVia((res) => res.writeHead(302, { location: `${target.url}/steal` }).end());
    const redirect307 = await sendVia((res) => res.writeHead(307, { location: `${target.url}/steal` }).end());
    const wrongCount = await sendVia((res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"events_received":0}'),
    );
    const notJson = await sendVia((res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>ok</html>'));
    // An 8 MiB answer is read up to the 64 KiB cap only, and its leading events_received still
    // decides: the right count is an accepted 200 (Meta lists the count first), a wrong one is not.
    const huge = await sendVia((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"events_received":1,"pad":"${'x'.repeat(8 * 1024 * 1024)}"}`);
    });
    const hugeWrong = await sendVia((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"events_received":0,"pad":"${'x'.repeat(8 * 1024 * 1024)}"}`);
    });
    const hugeNoCount = await sendVia((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"pad":"${'x'.repeat(8 * 1024 * 1024)}","events_received":1}`);
    });
    tally.check(redirect302.result?.outcome === 'dead', `302: ${JSON.stringify(redirect302.result)}`);
    tally.check(redirect307.result?.outcome === 'dead', `307: ${JSON.stringify(redirect307.result)}`);
    tally.check(target.hits === 0, `redirect target was called ${target.hits} times`);
    tally.check(wrongCount.result?.outcome === 'retry', `wrong count: ${JSON.stringify(wrongCount.result)}`);
    tally.check(notJson.result?.outcome === 'retry', `not JSON: ${JSON.stringify(notJson.result)}`);
    tally.check(huge.result?.outcome === 'sent', `8 MiB answer with the right count: ${huge.result?.outcome}`);
    tally.check(hugeWrong.result?.outcome === 'retry', `8 MiB answer with a wrong count: ${hugeWrong.result?.outcome}`);
    tally.check(
      hugeNoCount.result?.outcome === 'retry',
      `8 MiB answer, count past the cap: ${hugeNoCount.result?.outcome}`,
    );
    for (const r of [huge, hugeWrong, hugeNoCount]) {
      tally.check((r.result?.summary.length ?? 0) <= 500, 'huge answer kept whole');
    }
    figure('D10 Meta answers', { probes: tally.probes, trusted_or_followed: tally.bad });

    expect(tally.failures).toEqual([]);
  });

  it('when the API sets graph_version to a path or host trick, then it is refused: the Meta host is env-only', async () => {
    const tally = new Tally();
    for (const v of ['../../evil', '@evil.example', 'v21.0/../../x', 'v21.0?x=1', 'https://evil.example', 'v21.0#']) {
      const res = await h().app.inject({
        method: 'PUT',
        url: '/api/v1/connections/meta',
        headers: p.headers,
        payload: { dataset_id: '123', access_token: 'EAAGabcdefghijklmnopqrstuvwxyz', active: true, graph_version: v },
      });
      tally.check(res.statusCode === 400, `graph_version ${v}: ${res.statusCode}`);
    }
    const extra = await h().app.inject({
      method: 'PUT',
      url: '/api/v1/connections/meta',
      headers: p.headers,
      payload: {
        dataset_id: '123',
        access_token: 'EAAGabcdefghijklmnopqrstuvwxyz',
        active: true,
        base_url: 'https://evil.example',
        graph_base_url: 'https://evil.example',
      },
    });
    tally.check(extra.statusCode === 200 && !extra.body.includes('evil'), `extra url fields: ${extra.statusCode}`);
    figure('D10 Meta base URL', { probes: tally.probes, accepted: tally.bad });

    expect(tally.failures).toEqual([]);
  });
});
