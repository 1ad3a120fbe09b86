// Bad query strings, path parameters and Host headers on every route (catalog §4c strings and
// numbers, repeated keys as array coercion, prototype-named keys, malformed %-encoding, 1M-char
// values; §2 I8). Oracle: status ∈ the route's documented set, never 5xx, under 1 s, app alive.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { check, expectAlive, property, Tally } from '../support/bad-input-kit.ts';
import {
  ALL_ROUTES,
  type Fixture,
  makeFixture,
  pathOf,
  requestOf,
  useBadInputHarness,
} from '../support/bad-input-routes.ts';
import { BAD_STRINGS, badQueryValue, MILLION, wellFormed } from '../support/bad-input-values.ts';

const h = useBadInputHarness();
const tally = new Tally('queries.test.ts');
let x: Fixture;

beforeAll(async () => {
  x = await makeFixture(h());
});
afterAll(() => {
  console.log(tally.line());
});

// Keys no route reads, or that only look like object internals.
const EXTRA_KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'start_date', 'end_date', 'link', 'c'];
// Raw (not re-encoded) query fragments: malformed %-escapes, NUL, bare separators.
const RAW_FRAGMENTS = ['%', '%zz', '%00', '%E0%A4%A', '%C0%AF', '%ED%A0%80', '&&&', '==', 'a[b]=1', 'a[]=1&a[]=2', '+'];

const enc = encodeURIComponent;
// encodeURIComponent throws on a lone surrogate: send it as the replacement a browser would.
const safeEnc = (s: string): string => enc(wellFormed(s));

describe('every route, every query parameter', () => {
  const mode = fc.constantFrom('replace', 'repeat', 'drop', 'raw' as const);

  it.each(ALL_ROUTES.map((r) => [r.name, r] as const))(
    'when a query parameter of %s is bad, repeated, missing or malformed, then only documented statuses',
    async (_name, route) => {
      const base = route.query?.(x) ?? {};
      const keys = [...Object.keys(base), ...EXTRA_KEYS];
      await property(
        fc.record({
          key: fc.constantFrom(...keys),
          value: badQueryValue,
          mode,
          raw: fc.constantFrom(...RAW_FRAGMENTS),
        }),
        async ({ key, value, mode: m, raw }) => {
          const pairs = Object.entries(base).filter(([k]) => m !== 'drop' || k !== key);
          let qs = pairs
            .filter(([k]) => m !== 'replace' || k !== key)
            .map(([k, v]) => `${enc(k)}=${enc(v)}`)
            .join('&');
          if (m === 'replace' || m === 'repeat') {
            qs += `${qs ? '&' : ''}${enc(key)}=${safeEnc(value)}`;
          } else if (m === 'raw') {
            qs += `${qs ? '&' : ''}${enc(key)}=${raw}`;
          }
          // A body on a GET is ignored; a body route keeps its valid body.
          await check(
            h().app,
            tally,
            { ...requestOf(route, x, { query: qs }), label: `${route.name} [${m} ${key}]` },
            route.allowed,
          );
        },
      );
      await expectAlive(h().app);
    },
  );

  it.each(ALL_ROUTES.map((r) => [r.name, r] as const))(
    'when %s gets a 1M-character value and 1,000 repeated keys, then only documented statuses',
    async (_name, route) => {
      const key = Object.keys(route.query?.(x) ?? {})[0] ?? 'q';
      await check(h().app, tally, requestOf(route, x, { query: `${key}=${MILLION}` }), route.allowed);
      await check(h().app, tally, requestOf(route, x, { query: `${key}=1&`.repeat(1000) }), route.allowed);
      await check(h().app, tally, requestOf(route, x, { query: 'a=1&'.repeat(5000) }), route.allowed);
    },
  );
});

describe('path parameters and hosts', () => {
  const PARAM_ROUTES = ALL_ROUTES.filter((r) => r.params);
  // A path Fastify cannot route is 404; bad %-encoding (400) and a parameter over maxParamLength
  // (200; Fastify's 414) go through app.ts frameworkErrors as {msg: 'Invalid request parameters.'}.
  const allowed = (r: (typeof PARAM_ROUTES)[number]) => [...new Set([...r.allowed, 400, 404, 414])];

  it.each(PARAM_ROUTES.map((r) => [r.name, r] as const))(
    'when the path parameter of %s is bad, then only documented statuses',
    async (_name, route) => {
      const values = fc.oneof(
        { weight: 3, arbitrary: badQueryValue.map((v) => safeEnc(v)) },
        {
          weight: 1,
          arbitrary: fc.constantFrom(...RAW_FRAGMENTS, '..', '.', '%2F', '%2e%2e', 'a/b', 'a%2Fb', '?c=', '#'),
        },
        { weight: 1, arbitrary: fc.constantFrom(64, 65, 200, 201, 5000).map((n) => 'a'.repeat(n)) },
      );
      await property(values, async (raw) => {
        const req = requestOf(route, x);
        const url = route.path.replace(/:[a-z_]+/, raw);
        await check(h().app, tally, { ...req, url, label: `${route.name} [param]` }, allowed(route));
      });
    },
  );

  it.each(ALL_ROUTES.filter((r) => r.auth === 'none').map((r) => [r.name, r] as const))(
    'when %s is asked for with an odd Host, then only documented statuses',
    async (_name, route) => {
      const hosts = [
        '',
        'attr.test:99999',
        'ATTR.TEST',
        'attr.test.',
        '[::1]:80',
        'evil.example',
        'xn--caf-dma.test',
        'a'.repeat(300),
        '127.0.0.1',
        x.domain,
        x.domain.toUpperCase(),
        `${x.domain}:443`,
        'localhost:abc',
        'attr\u0000.test',
        `${x.domain}\u0000`,
      ];
      for (const host of hosts) {
        const req = requestOf(route, x);
        const url = pathOf(route, x);
        await check(
          h().app,
          tally,
          { ...req, url, headers: { ...req.headers, host }, label: `${route.name} [host ${host}]` },
          route.allowed,
        );
      }
      // GET /%00 and /?c=%00 were a 500 (NUL reached a Postgres text parameter), on both hosts.
      for (const host of ['attr.test', x.domain, 'localhost']) {
        for (const nul of ['%00', 'a%00b']) {
          const req = requestOf(route, x, { query: `c=${nul}`, params: { display_id: '\u0000' } });
          const url = route.path === '/:display_id' ? `/${nul}` : req.url;
          await check(
            h().app,
            tally,
            { ...req, url, headers: { ...req.headers, host }, label: `${route.name} [NUL]` },
            route.allowed,
          );
        }
      }
      for (const s of BAD_STRINGS.slice(0, 20)) {
        const req = requestOf(route, x);
        await check(
          h().app,
          tally,
          {
            ...req,
            headers: { ...req.headers, 'user-agent': wellFormed(s), referer: wellFormed(s) },
            label: `${route.name} [ua]`,
          },
          route.allowed,
        );
      }
      await expectAlive(h().app);
    },
  );
});
