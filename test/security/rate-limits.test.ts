// Catalog §4d D5, only what test/http/v1/rate-limits.test.ts (data 30/s, campaign 10/s, per-IP 30/s
// with X-Forwarded-For rotation and a trusted proxy, Redis-shared counters), reporting.test.ts
// (1/min per key, Retry-After: 60) and http/client/init.test.ts (25/s per token on init) leave open:
// the per-IP limit counted over EVERY /api/v1 route from the catalog's sources 127.0.0.2-5 with a
// new X-Forwarded-For on each request, and the per-token client budget shared by every
// /api/client route. Limits are fixed one-second windows: a burst that outlived its window reruns.
import { randomInt, randomUUID } from 'node:crypto';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { createMcpToken } from '../../src/domain/mcp/create-mcp-token.ts';
import { MSG } from '../../src/http/messages.ts';
import { newProject, useHarness } from '../support/harness.ts';
import { figure, servedRoutes } from '../support/security-routes.ts';

const h = useHarness({ env: { RATE_LIMIT_IP_PER_SECOND: '30' } });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Fires `fire()` right after a second boundary; reruns (up to 3 times) if it crossed into the next second. */
async function burst(fire: (attempt: number) => Promise<LightMyRequestResponse>[]): Promise<LightMyRequestResponse[]> {
  for (let attempt = 1; ; attempt++) {
    while (Date.now() % 1000 >= 50) {
      await sleep(1000 - (Date.now() % 1000));
    }
    const window = Math.floor(Date.now() / 1000);
    const results = await Promise.all(fire(attempt));
    if (Math.floor(Date.now() / 1000) === window || attempt === 3) {
      return results;
    }
  }
}

const limitedBody = JSON.stringify({ msg: MSG.rateLimited, status: 429 });

describe('D5 per source IP over every /api/v1 route', () => {
  it('when 127.0.0.2-5 each send 40 requests spread over every route with rotating X-Forwarded-For, then each gets exactly 10 × 429', async () => {
    const routes = servedRoutes(h().app).filter((r) => r.url.startsWith('/api/v1/') && r.method !== 'HEAD');
    const sources = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'];
    // Each attempt needs a fresh window for each source: the attempt number picks a new last octet.
    const results = await burst((attempt) =>
      sources.flatMap((ip, s) =>
        Array.from({ length: 40 }, (_, i) => {
          const route = routes[(i + s) % routes.length] ?? { method: 'GET', url: '/api/v1/campaigns' };
          return h().app.inject({
            method: route.method as InjectOptions['method'],
            url: route.url.replace(/:([a-z_]+)/g, 'x'),
            remoteAddress: attempt === 1 ? ip : ip.replace(/\.\d+$/, `.${10 * attempt + s}`),
            headers: { 'x-forwarded-for': `198.51.100.${randomInt(1, 255)}` },
            ...(['POST', 'PUT', 'PATCH'].includes(route.method) ? { payload: {} } : {}),
          });
        }),
      ),
    );
    const per = sources.map((_, s) => results.slice(s * 40, s * 40 + 40));
    const limited = per.map((rs) => rs.filter((r) => r.statusCode === 429).length);
    const bypass = limited.reduce((n, l) => n + Math.max(0, 10 - l), 0);
    figure('D5 per-IP', {
      routes: routes.length,
      sources: sources.length,
      offered_per_source: 40,
      accepted_per_source: per.map((rs) => rs.filter((r) => r.statusCode !== 429).length).join('/'),
      bypass_successes: bypass,
    });

    expect(limited).toEqual([10, 10, 10, 10]);
    expect(results.filter((r) => r.statusCode === 429).every((r) => r.body === limitedBody)).toBe(true);
  });
});

describe('D5 client budget per token across every /api/client route', () => {
  it('when one token sends 35 requests spread over every client route in one second, then exactly 10 × 429', async () => {
    const routes = servedRoutes(h().app).filter((r) => r.url.startsWith('/api/client/'));
    const results = await burst(() => {
      // A fresh project per attempt: a fresh token budget.
      const project = newProject(h().deps);
      return Array.from({ length: 35 }, async (_, i) => {
        const p = await project;
        const route = routes[i % routes.length] ?? { url: '/api/client/init' };
        return h().app.inject({
          method: 'POST',
          url: route.url,
          remoteAddress: `10.77.${randomInt(0, 255)}.${randomInt(1, 255)}`,
          payload: { token: p.token, platform: 'ANDROID', install_instance_id: randomUUID(), device_data: {} },
        });
      });
    });
    const limited = results.filter((r) => r.statusCode === 429);
    figure('D5 client per-token', {
      routes: routes.length,
      offered: results.length,
      accepted: results.length - limited.length,
      bypass_successes: Math.max(0, 10 - limited.length),
    });

    expect(limited).toHaveLength(10);
    expect(limited.every((r) => r.body === limitedBody)).toBe(true);
  });
});

// The MCP endpoint and the RevenueCat webhook (README "Rate limits", "MCP server", "RevenueCat
// webhook"): MCP counts against the per-IP limit shared with /api/v1, and 30/s per token apart from
// the server key's budgets; the webhook has no limit and spends no one's budget; the RevenueCat
// connection routes are in the campaign group (10/s per key). The clock is held inside one second.
describe('D5 the MCP endpoint and the RevenueCat webhook', () => {
  let second = 0;
  /** Runs `fn` with deps.now held at the start of a second of its own (never used before). */
  async function inOneSecond<T>(fn: () => Promise<T>): Promise<T> {
    const { deps } = h();
    const real = deps.now;
    second += 1;
    const t0 = (Math.floor(real() / 1000) + 3600 + second * 10) * 1000;
    deps.now = () => t0;
    try {
      return await fn();
    } finally {
      deps.now = real;
    }
  }
  const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
  const mcp = (token: string, ip: string, method: 'POST' | 'GET' | 'DELETE' = 'POST') =>
    h().app.inject({
      method,
      url: `/mcp/${token}`,
      remoteAddress: ip,
      headers: { 'x-forwarded-for': `198.51.100.${randomInt(1, 255)}` },
      ...(method === 'POST' ? { payload: ping } : {}),
    });
  async function tokens() {
    const p = await newProject(h().deps);
    const issue = async (name: string) => (await createMcpToken(h().deps, p.project.id, { name })).token;
    const rc = await h().app.inject({ method: 'PUT', url: '/api/v1/connections/revenuecat', headers: p.headers });
    return { p, mcpA: await issue('a'), mcpB: await issue('b'), rc: rc.json().data.authorization_token as string };
  }

  it('when one source IP sends 40 requests mixing /api/v1 and MCP (POST, GET, DELETE), then exactly the last 10 are 429 with Retry-After: 1', async () => {
    const { p, mcpA } = await tokens();
    const ip = '127.0.0.21';
    const results = await inOneSecond(async () => {
      const out: LightMyRequestResponse[] = [];
      for (let i = 0; i < 40; i++) {
        const kind = i % 4;
        out.push(
          kind === 0
            ? await h().app.inject({ method: 'GET', url: '/api/v1/campaigns', headers: p.headers, remoteAddress: ip })
            : await mcp(mcpA, ip, kind === 1 ? 'POST' : kind === 2 ? 'GET' : 'DELETE'),
        );
      }
      return out;
    });
    const limited = results.map((r) => r.statusCode === 429);
    figure('D5 per-IP shared with MCP', {
      offered: results.length,
      accepted: limited.filter((l) => !l).length,
      bypass_successes: Math.max(0, 10 - limited.filter(Boolean).length),
    });

    expect(limited).toEqual(Array.from({ length: 40 }, (_, i) => i >= 30));
    expect(results.slice(30).every((r) => r.body === limitedBody && r.headers['retry-after'] === '1')).toBe(true);
  });

  it('when one MCP token sends 35 requests from 35 IPs in a second, then exactly 5 are 429; another token and the server key keep their own budgets', async () => {
    const { p, mcpA, mcpB } = await tokens();
    const { a, b, key } = await inOneSecond(async () => {
      const run = async (n: number, send: (ip: string) => Promise<LightMyRequestResponse>) => {
        const out: number[] = [];
        for (let i = 0; i < n; i++) {
          out.push((await send(`10.88.${randomInt(0, 255)}.${randomInt(1, 255)}`)).statusCode);
        }
        return out;
      };
      return {
        a: await run(35, (ip) => mcp(mcpA, ip)),
        b: await run(30, (ip) => mcp(mcpB, ip)),
        key: await run(30, (ip) =>
          h().app.inject({ method: 'GET', url: '/api/v1/campaigns', headers: p.headers, remoteAddress: ip }),
        ),
      };
    });
    figure('D5 per MCP token', { offered: a.length, accepted: a.filter((s) => s !== 429).length });

    expect(a.filter((s) => s === 429)).toHaveLength(5);
    expect(a.slice(0, 30).every((s) => s === 200)).toBe(true);
    expect(b.every((s) => s === 200)).toBe(true);
    expect(key.every((s) => s === 200)).toBe(true);
  });

  it('when one IP sends 60 RevenueCat webhook events in a second, then none is 429 and the IP keeps its whole /api/v1 budget', async () => {
    const { p, rc } = await tokens();
    const ip = '127.0.0.22';
    const { hooks, v1 } = await inOneSecond(async () => {
      const hookStatuses: number[] = [];
      for (let i = 0; i < 60; i++) {
        const res = await h().app.inject({
          method: 'POST',
          url: '/webhook/revenuecat',
          remoteAddress: ip,
          headers: { authorization: `Bearer ${rc}` },
          payload: { event: { type: 'TEST', id: `t${i}` } },
        });
        hookStatuses.push(res.statusCode);
      }
      const v1Statuses: number[] = [];
      for (let i = 0; i < 30; i++) {
        const res = await h().app.inject({
          method: 'GET',
          url: '/api/v1/campaigns',
          headers: p.headers,
          remoteAddress: ip,
        });
        v1Statuses.push(res.statusCode);
      }
      return { hooks: hookStatuses, v1: v1Statuses };
    });
    figure('D5 webhook', { offered: hooks.length, limited: hooks.filter((s) => s === 429).length });

    expect(hooks.every((s) => s === 200)).toBe(true);
    expect(v1.every((s) => s === 200)).toBe(true);
  });

  it('when one key sends 12 requests to the RevenueCat connection routes in a second, then the campaign group’s 10 pass and 2 are 429', async () => {
    const { p } = await tokens();
    const statuses = await inOneSecond(async () => {
      const out: number[] = [];
      for (let i = 0; i < 12; i++) {
        const method = (['GET', 'PUT', 'DELETE'] as const)[i % 3];
        const res = await h().app.inject({
          method,
          url: '/api/v1/connections/revenuecat',
          headers: p.headers,
          remoteAddress: `10.89.${randomInt(0, 255)}.${randomInt(1, 255)}`,
        });
        out.push(res.statusCode);
      }
      return out;
    });

    expect(statuses).toEqual([...Array(10).fill(200), 429, 429]);
  });
});
