// Catalog §4d D5, only what test/http/v1/rate-limits.test.ts (data 30/s, campaign 10/s, per-IP 30/s
// with X-Forwarded-For rotation and a trusted proxy, Redis-shared counters), reporting.test.ts
// (1/min per key, Retry-After: 60) and http/client/init.test.ts (25/s per token on init) leave open:
// the per-IP limit counted over EVERY /api/v1 route from the catalog's sources 127.0.0.2-5 with a
// new X-Forwarded-For on each request, and the per-token client budget shared by every
// /api/client route. Limits are fixed one-second windows: a burst that outlived its window reruns.
import { randomInt, randomUUID } from 'node:crypto';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
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
