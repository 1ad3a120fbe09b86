// README "API": "Every route below is in both [/openapi.json and /docs], with `HEAD` of the link
// routes and `PATCH`/`PUT`/`DELETE /api/v1/campaigns` without a display id ...; any other path
// answers 404 `Route not found.` (JSON)". So a HEAD of a non-link route is either documented or a
// 404; Fastify's automatic HEAD routes served it undocumented (and ran the handler, counting it
// against the route's rate limit: a README hunt). HEAD is now served, and documented, for the links,
// the well-known files and the health checks only.
import { describe, expect, it } from 'vitest';
import { newProject, useHarness } from '../support/harness.ts';
import { fetchDoc } from '../support/openapi.ts';

const h = useHarness({ env: { RATE_LIMIT_IP_PER_SECOND: '1000000' } });

const GET_ROUTES = [
  '/api/v1/campaigns',
  '/api/v1/get-attribution-result',
  '/api/v1/attributed-users',
  '/api/v1/reporting/campaigns',
  '/api/v1/skan/schema',
  '/.well-known/apple-app-site-association',
  '/.well-known/assetlinks.json',
  '/healthz',
  '/readyz',
  '/openapi.json',
  '/docs',
];

describe('HEAD of routes the README lists as GET only', () => {
  it('when a non-link GET route gets HEAD, then it is a documented operation or 404 Route not found.', async () => {
    const doc = await fetchDoc(h().app);
    const p = await newProject(h().deps);
    const undocumented: string[] = [];
    for (const path of GET_ROUTES) {
      const res = await h().app.inject({ method: 'HEAD', url: path, headers: p.headers });
      // A 404 is the JSON not-found answer, not the link handler's 404 page (HEAD /docs was a link).
      const notFound = res.statusCode === 404 && String(res.headers['content-type']).startsWith('application/json');
      if (!notFound && !doc.paths[path]?.head) {
        undocumented.push(`HEAD ${path} -> ${res.statusCode} ${res.headers['content-type']}`);
      }
    }
    expect(undocumented).toEqual([]);
  });

  it('when a load balancer checks health with HEAD, then /healthz and /readyz answer 200 without a body, as documented', async () => {
    const doc = await fetchDoc(h().app);
    for (const path of ['/healthz', '/readyz']) {
      const res = await h().app.inject({ method: 'HEAD', url: path });
      expect([path, res.statusCode, res.body]).toEqual([path, 200, '']);
      expect(doc.paths[path]?.head).toBeDefined();
    }
  });
});
