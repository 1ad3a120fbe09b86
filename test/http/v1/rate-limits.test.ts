// Rate limits at the spec's numbers (Limits table; catalog D5): data 30/s and campaign 10/s per
// key, 30/s per source IP shared by every /api/v1 route, X-Forwarded-For honoured only from a trusted
// proxy, counters shared through Redis, and fail-open when the counter store breaks.
// Limits are fixed one-second windows on the wall clock, so each burst starts right after a second
// boundary and is fired all at once; a burst the machine could not finish inside its window is
// re-run on fresh tenants and IPs (a window edge, not a limiter bug, would split the counts).
// Tests in a group run concurrently: each has its own keys and source IPs, so bursts can share a window.
import { randomInt } from 'node:crypto';
import { Writable } from 'node:stream';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildApp } from '../../../src/app.ts';
import type { Deps } from '../../../src/deps.ts';
import { createLogger } from '../../../src/lib/logger.ts';
import type { RateLimitStore } from '../../../src/store/redis/rate-limit-store.ts';
import {
  closeHarness,
  type Harness,
  makeHarness,
  newProject,
  type TestProject,
  useHarness,
} from '../../support/harness.ts';

const RATE_LIMITED = { msg: 'Rate limit exceeded. Please try again later.', status: 429 };

type Res = LightMyRequestResponse;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** 127.a.b.c, never 127.0.0.1 (shared by every other request in the run). */
const randomIp = () => `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;

/** A documentation-range client address for X-Forwarded-For. */
const randomClient = () => `198.51.${randomInt(0, 256)}.${randomInt(1, 255)}`;

/** Sleeps into the next one-second window. */
const nextWindow = () => sleep(1000 - (Date.now() % 1000) + 1);

async function atWindowStart(): Promise<void> {
  while (Date.now() % 1000 >= 50) {
    await sleep(1000 - (Date.now() % 1000));
  }
}

/**
 * Prepares fresh tenants/IPs, waits for a second boundary, then fires every request at once.
 * Runs again (up to three times) only when the burst outlived its one-second window.
 */
async function burst<C>(prepare: () => Promise<C>, fire: (ctx: C) => Promise<Res>[]): Promise<Res[]> {
  for (let attempt = 1; ; attempt++) {
    const ctx = await prepare();
    await atWindowStart();
    const window = Math.floor(Date.now() / 1000);
    const results = await Promise.all(fire(ctx));
    if (Math.floor(Date.now() / 1000) === window || attempt === 3) {
      return results;
    }
  }
}

function countByStatus(results: Res[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const r of results) {
    out[r.statusCode] = (out[r.statusCode] ?? 0) + 1;
  }
  return out;
}

function expectLimitedBodies(results: Res[]): void {
  for (const r of results.filter((x) => x.statusCode === 429)) {
    expect(r.json()).toEqual(RATE_LIMITED);
  }
}

const times = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));

/** The i-th element, cycling. */
const at = <T>(items: readonly T[], i: number): T => items[i % items.length] as T;

const EDIT_METHODS = ['PATCH', 'PUT', 'DELETE'] as const;

function list(h: Harness, p: TestProject | undefined, remoteAddress: string, extra: InjectOptions['headers'] = {}) {
  return h.app.inject({
    method: 'GET',
    url: '/api/v1/campaigns',
    headers: { ...(p ? p.headers : {}), ...extra },
    remoteAddress,
  });
}

function create(h: Harness, p: TestProject, remoteAddress: string) {
  return h.app.inject({
    method: 'POST',
    url: '/api/v1/create-campaign',
    headers: p.headers,
    payload: { name: 'Burst campaign' },
    remoteAddress,
  });
}

function edit(h: Harness, p: TestProject, remoteAddress: string, method: 'PATCH' | 'PUT' | 'DELETE') {
  return h.app.inject({
    method,
    url: '/api/v1/campaigns/no-such-campaign',
    headers: p.headers,
    ...(method === 'DELETE' ? {} : { payload: { name: 'x' } }),
    remoteAddress,
  });
}

describe.concurrent('per server key (defaults: data 30/s, campaign 10/s)', () => {
  const h = useHarness();

  it('when one key sends 40 list requests in one second, then 30 get 200 and 10 get 429', async () => {
    const results = await burst(
      async () => ({ p: await newProject(h().deps), ip: randomIp() }),
      ({ p, ip }) => times(40, () => list(h(), p, ip)),
    );

    expect(countByStatus(results)).toEqual({ 200: 30, 429: 10 });
    expectLimitedBodies(results);
  });

  it('when one key splits 40 data requests over list and get-attribution-result, then they share the 30', async () => {
    const lookup = (p: TestProject, ip: string) =>
      h().app.inject({
        method: 'GET',
        url: '/api/v1/get-attribution-result?user_id=nobody',
        headers: p.headers,
        remoteAddress: ip,
      });
    const results = await burst(
      async () => ({ p: await newProject(h().deps), ip: randomIp() }),
      ({ p, ip }) => times(40, (i) => (i % 2 === 0 ? list(h(), p, ip) : lookup(p, ip))),
    );

    expect(results.filter((r) => r.statusCode === 429)).toHaveLength(10);
    expect(results.filter((r) => r.statusCode === 200 || r.statusCode === 204)).toHaveLength(30);
    expectLimitedBodies(results);
  });

  it('when the next second starts, then the limited key is served again', async () => {
    let last = { p: undefined as TestProject | undefined, ip: '' };
    const first = await burst(
      async () => {
        last = { p: await newProject(h().deps), ip: randomIp() };
        return last;
      },
      ({ p, ip }) => times(31, () => list(h(), p, ip)),
    );
    await nextWindow();

    const next = await list(h(), last.p, last.ip);

    expect(countByStatus(first)).toEqual({ 200: 30, 429: 1 });
    expect(next.statusCode).toBe(200);
  });

  it('when one key sends 15 create-campaign requests in one second, then 10 get 201 and 5 get 429', async () => {
    const results = await burst(
      async () => ({ p: await newProject(h().deps), ip: randomIp() }),
      ({ p, ip }) => times(15, () => create(h(), p, ip)),
    );

    expect(countByStatus(results)).toEqual({ 201: 10, 429: 5 });
    expectLimitedBodies(results);
  });

  it('when create, edit and delete use one key, then they share the campaign budget of 10', async () => {
    const results = await burst(
      async () => ({ p: await newProject(h().deps), ip: randomIp() }),
      ({ p, ip }) => times(16, (i) => (i % 4 === 0 ? create(h(), p, ip) : edit(h(), p, ip, at(EDIT_METHODS, i)))),
    );

    expect(results.filter((r) => r.statusCode === 429)).toHaveLength(6);
    expectLimitedBodies(results);
  });

  it('when one key makes 30 list and 10 create requests in one second, then none is limited', async () => {
    const results = await burst(
      async () => ({ p: await newProject(h().deps), ip: randomIp() }),
      ({ p, ip }) => [...times(30, () => list(h(), p, ip)), ...times(10, () => create(h(), p, ip))],
    );

    expect(countByStatus(results)).toEqual({ 200: 30, 201: 10 });
  });

  it('when two keys each send 30 list requests in one second, then none is limited', async () => {
    const results = await burst(
      async () => ({ a: await newProject(h().deps), b: await newProject(h().deps), ip: randomIp() }),
      ({ a, b, ip }) => [...times(30, () => list(h(), a, ip)), ...times(30, () => list(h(), b, ip))],
    );

    expect(countByStatus(results)).toEqual({ 200: 60 });
  });
});

describe.concurrent('per source IP (30/s across /api/v1)', () => {
  const h = useHarness({ env: { RATE_LIMIT_IP_PER_SECOND: '30' } });
  const projects = () => Promise.all(times(4, () => newProject(h().deps)));

  it('when one IP sends 40 requests over every route with four keys, then 30 pass and 10 get 429', async () => {
    const results = await burst(
      async () => ({ ps: await projects(), ip: randomIp() }),
      ({ ps, ip }) =>
        times(40, (i) => {
          const p = at(ps, i);
          const kind = Math.floor(i / 4) % 5;
          if (kind === 0) {
            return create(h(), p, ip);
          }
          return kind <= 2 ? list(h(), p, ip) : edit(h(), p, ip, at(EDIT_METHODS, i));
        }),
    );

    expect(results.filter((r) => r.statusCode === 429)).toHaveLength(10);
    expectLimitedBodies(results);
  });

  it('when requests carry no key, then they still count against the IP: 30 × 401 and 10 × 429', async () => {
    const results = await burst(
      async () => randomIp(),
      (ip) => times(40, () => list(h(), undefined, ip)),
    );

    expect(countByStatus(results)).toEqual({ 401: 30, 429: 10 });
    expectLimitedBodies(results);
  });

  it("when the IP limit stops a reporting request, then its 429 says Retry-After: 60 (spec: either of reporting's limits)", async () => {
    const results = await burst(
      async () => ({ p: (await projects())[0] as TestProject, ip: randomIp() }),
      ({ p, ip }) => {
        const lists = times(30, () => list(h(), p, ip));
        const report = Promise.all(lists).then(() =>
          h().app.inject({ method: 'GET', url: '/api/v1/reporting/campaigns', headers: p.headers, remoteAddress: ip }),
        );
        return [...lists, report];
      },
    );
    const report = results.at(-1) as Res;

    expect(countByStatus(results)).toEqual({ 200: 30, 429: 1 });
    expect(report.statusCode).toBe(429);
    expect(report.json()).toEqual(RATE_LIMITED);
    expect(report.headers['retry-after']).toBe('60');
    expect(results[0]?.headers['retry-after']).toBeUndefined();
  });

  it('when two IPs send 30 requests each in one second, then none is limited', async () => {
    const results = await burst(
      async () => ({ ps: await projects(), ips: [randomIp(), randomIp()] }),
      ({ ps, ips }) => times(60, (i) => list(h(), at(ps, i), at(ips, i))),
    );

    expect(countByStatus(results)).toEqual({ 200: 60 });
  });

  it('when X-Forwarded-For changes on every request and TRUST_PROXY is off, then the socket address is still limited', async () => {
    const results = await burst(
      async () => ({ ps: await projects(), ip: randomIp() }),
      ({ ps, ip }) => times(40, (i) => list(h(), at(ps, i), ip, { 'x-forwarded-for': randomClient() })),
    );

    expect(countByStatus(results)).toEqual({ 200: 30, 429: 10 });
    expectLimitedBodies(results);
  });
});

describe.concurrent('per source IP behind a trusted proxy (TRUST_PROXY=127.0.0.1)', () => {
  const h = useHarness({ env: { RATE_LIMIT_IP_PER_SECOND: '30', TRUST_PROXY: '127.0.0.1' } });
  const projects = () => Promise.all(times(4, () => newProject(h().deps)));

  it('when the proxy forwards 40 requests for 40 different clients, then none is limited', async () => {
    const results = await burst(projects, (ps) =>
      times(40, (i) => list(h(), at(ps, i), '127.0.0.1', { 'x-forwarded-for': randomClient() })),
    );

    expect(countByStatus(results)).toEqual({ 200: 40 });
  });

  it('when the proxy forwards 40 requests for one client, then that client gets 30 and 10 × 429', async () => {
    const results = await burst(
      async () => ({ ps: await projects(), client: randomClient() }),
      ({ ps, client }) => times(40, (i) => list(h(), at(ps, i), '127.0.0.1', { 'x-forwarded-for': client })),
    );

    expect(countByStatus(results)).toEqual({ 200: 30, 429: 10 });
    expectLimitedBodies(results);
  });

  it('when an untrusted address sends rotating X-Forwarded-For, then the header is ignored', async () => {
    const results = await burst(
      async () => ({ ps: await projects(), ip: randomIp() }),
      ({ ps, ip }) => times(40, (i) => list(h(), at(ps, i), ip, { 'x-forwarded-for': randomClient() })),
    );

    expect(countByStatus(results)).toEqual({ 200: 30, 429: 10 });
  });
});

const redisUrl = inject('redisUrl');

describe.skipIf(!redisUrl)('counters in Redis (service mode; needs TEST_REDIS_URL)', () => {
  let a: Harness | undefined;
  let b: Harness | undefined;
  const both = (): [Harness, Harness] => {
    if (!a || !b) {
      throw new Error('redis harnesses not ready');
    }
    return [a, b];
  };
  beforeAll(async () => {
    a = await makeHarness({ redis: true });
    b = await makeHarness({ redis: true });
  });
  afterAll(async () => {
    for (const x of [a, b]) {
      if (x) {
        await closeHarness(x);
      }
    }
  });

  it('when one key sends 40 list requests in one second, then 30 get 200 and 10 get 429', async () => {
    const [api] = both();
    const results = await burst(
      async () => ({ p: await newProject(api.deps), ip: randomIp() }),
      ({ p, ip }) => times(40, () => list(api, p, ip)),
    );

    expect(countByStatus(results)).toEqual({ 200: 30, 429: 10 });
    expectLimitedBodies(results);
  });

  it('when two API processes serve one key, then they share its budget: 30 of 40 pass in total', async () => {
    const [one, two] = both();
    const results = await burst(
      async () => ({ p: await newProject(one.deps), ip: randomIp() }),
      ({ p, ip }) => times(40, (i) => list(i % 2 === 0 ? one : two, p, ip)),
    );

    expect(countByStatus(results)).toEqual({ 200: 30, 429: 10 });
  });
});

describe('fail-open', () => {
  const h = useHarness({ env: { RATE_LIMIT_IP_PER_SECOND: '30' } });

  it('when the counter store throws, then every request is let through and a warning is logged', async () => {
    let out = '';
    const log = createLogger(
      'warn',
      new Writable({
        write(chunk, _enc, done) {
          out += String(chunk);
          done();
        },
      }),
    );
    const broken: RateLimitStore = {
      hit: async () => {
        throw new Error('connection refused');
      },
    };
    const deps: Deps = { ...h().deps, log, rateLimits: broken };
    const app = await buildApp(deps);
    const p = await newProject(deps);
    const ip = randomIp();
    try {
      const results = await Promise.all(
        times(45, () => app.inject({ method: 'GET', url: '/api/v1/campaigns', headers: p.headers, remoteAddress: ip })),
      );

      expect(countByStatus(results)).toEqual({ 200: 45 });
      expect(out).toContain('rate limit store unavailable; request allowed');
    } finally {
      await app.close();
    }
  });
});
