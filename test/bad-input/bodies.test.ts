// Bad bodies on every route that reads one (catalog §4c "Bodies", "Size", "Nesting", prototype
// keys; §2 I8): each whole-body case on each route, then fast-check over every field of each
// route's valid body (replaced by a bad value, written twice as a duplicate key, or dropped).
// Oracle: status ∈ the route's documented set (bad-input-routes.ts), never 5xx, under 1 s, and
// /healthz still answers. Runs in-process (app.inject); socket.test.ts covers the HTTP parser.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { check, expectAlive, property, Tally } from '../support/bad-input-kit.ts';
import {
  ALL_ROUTES,
  BODY_ROUTES,
  type Fixture,
  makeFixture,
  requestOf,
  useBadInputHarness,
} from '../support/bad-input-routes.ts';
import { BAD_BODIES, badLiteral, keyPaths, withDuplicateKey, withRaw } from '../support/bad-input-values.ts';

const h = useBadInputHarness();
const tally = new Tally('bodies.test.ts');
let x: Fixture;

beforeAll(async () => {
  x = await makeFixture(h());
});
afterAll(() => {
  console.log(tally.line());
});

// DELETE takes no body, but Fastify parses one when a content type is sent: it gets the same cases.
const TARGETS = [...BODY_ROUTES, ...ALL_ROUTES.filter((r) => r.method === 'DELETE')];

describe('every body route, every bad whole body', () => {
  it.each(TARGETS.map((r) => [r.name, r] as const))(
    'when %s gets each bad body, then only documented statuses, under 1 s, and the app lives',
    async (_name, route) => {
      for (const b of BAD_BODIES) {
        await check(
          h().app,
          tally,
          { ...requestOf(route, x, { body: b.body, contentType: b.type }), label: `${route.name} [${b.label}]` },
          route.allowed,
        );
      }
      // No content type at all, and a body on a route whose credential is missing.
      const base = requestOf(route, x);
      const { 'content-type': _drop, ...noType } = base.headers as Record<string, string>;
      await check(
        h().app,
        tally,
        { ...base, headers: noType, label: `${route.name} [no content-type]` },
        route.allowed,
      );
      await expectAlive(h().app);
    },
  );
});

describe('every body route, every field', () => {
  const mode = fc.constantFrom('replace', 'duplicate-bad-first', 'duplicate-bad-last', 'drop' as const);

  it.each(BODY_ROUTES.map((r) => [r.name, r] as const))(
    'when a field of %s is bad, duplicated or missing, then only documented statuses',
    async (_name, route) => {
      const base = (route.body as (x: Fixture) => Record<string, unknown>)(x);
      const paths = keyPaths(base);
      await property(
        fc.record({ path: fc.constantFrom(...paths), literal: badLiteral, mode }),
        async ({ path, literal, mode: m }) => {
          let body: string;
          if (m === 'replace') {
            body = withRaw(base, path, literal);
          } else if (m === 'drop') {
            const copy = structuredClone(base);
            let at: Record<string, unknown> = copy;
            for (const k of path.slice(0, -1)) {
              at = at[k] as Record<string, unknown>;
            }
            delete at[path[path.length - 1] as string];
            body = JSON.stringify(copy);
          } else {
            body = withDuplicateKey(base, path[0] as string, literal, m === 'duplicate-bad-first');
          }
          await check(
            h().app,
            tally,
            { ...requestOf(route, x, { body }), label: `${route.name} [${m} ${path.join('.')}]` },
            route.allowed,
          );
        },
      );
      await expectAlive(h().app);
    },
  );
});

describe('the allowed sets against /openapi.json', () => {
  it('when the suite allows a status, then /openapi.json documents it for that operation', async () => {
    const doc = (await h().app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    // Answers the framework gives any body route before its handler (unreadable JSON, size, type).
    const generic = new Set([400, 413, 415]);
    const undocumented: string[] = [];
    for (const r of ALL_ROUTES) {
      const op = doc.paths[r.path.replace(/:([a-z_]+)/g, '{$1}')]?.[r.method.toLowerCase()];
      if (!op) {
        undocumented.push(`${r.name}: no operation`);
        continue;
      }
      for (const s of r.allowed) {
        const hasBody = r.body !== undefined || r.method === 'DELETE';
        if (!(String(s) in op.responses) && !(hasBody && generic.has(s))) {
          undocumented.push(`${r.name}: ${s}`);
        }
      }
    }
    expect(undocumented).toEqual([]);
  });
});
