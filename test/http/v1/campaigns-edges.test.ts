// Campaign endpoints' edges, kept as regression tests: the list's link filter reads every link shape
// a user pastes (product notes "Data APIs"; README "List filters"), custom display ids refuse only
// the fixed single-segment routes, URL fields refuse unsafe schemes and credentials, and the spec's
// texts and field types hold on edit, delete and the list. Rate limits are off.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as f from '../../support/factories.ts';
import { newProject, type TestProject, useHarness } from '../../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });
const ANDROID =
  'Mozilla/5.0 (Linux; Android 13; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.144 Mobile Safari/537.36';

function create(p: TestProject, body: Record<string, unknown>) {
  return h().app.inject({ method: 'POST', url: '/api/v1/create-campaign', headers: p.headers, payload: body });
}
function list(p: TestProject, query: Record<string, string>) {
  return h().app.inject({
    method: 'GET',
    url: `/api/v1/campaigns?${new URLSearchParams(query).toString()}`,
    headers: p.headers,
  });
}
const ids = (res: { json: () => { data: { campaigns: { display_id: string }[] } } }) =>
  res.json().data.campaigns.map((c) => c.display_id);

describe('GET /api/v1/campaigns link filter: shapes users paste', () => {
  it.each([
    ['/<id>/ with a trailing slash', (host: string, id: string) => `https://${host}/${id}/`],
    ['?c= without a slash before it', (host: string, id: string) => `https://${host}?c=${id}`],
    ['http instead of https', (host: string, id: string) => `http://${host}/?c=${id}`],
    ['no scheme', (host: string, id: string) => `${host}/${id}`],
    ['a protocol-relative link', (host: string, id: string) => `//${host}/?c=${id}`],
    [
      'an upper-case host with a trailing dot and a port',
      (host: string, id: string) => `HTTPS://${host.toUpperCase()}.:8443/${id}`,
    ],
    ['?c= on a deeper path (an app universal link)', (host: string, id: string) => `https://${host}/promo/x?c=${id}`],
  ])('when link is %s, then 200 with only that campaign', async (_case, build) => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const d = await f.domain(deps, p);
    const target = await f.campaign(app, p);
    await f.campaign(app, p);

    const res = await list(p, { link: build(d.name, target.display_id) });

    expect(res.statusCode).toBe(200);
    expect(res.json().msg).toBe('Successfully retrieved 1 campaigns (all campaigns). Showing page 1 of 1.');
    expect(ids(res)).toEqual([target.display_id]);
  });

  it.each([
    ['another scheme (ftp)', (host: string, id: string) => `ftp://${host}/${id}`],
    ['the display id in another case', (host: string, id: string) => `https://${host}/${id.toLowerCase()}x`],
  ])('when link is %s, then 400 Invalid request parameters.', async (_case, build) => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const d = await f.domain(deps, p);
    const c = await f.campaign(app, p);

    const res = await list(p, { link: build(d.name, c.display_id) });

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ msg: 'Invalid request parameters.', status: 400 });
  });

  it('when filter and channel are empty, then no filter applies and the scope is all campaigns', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    await f.campaign(app, p);
    await f.campaign(app, p, { ad_network: 'TIKTOK' });

    const res = await list(p, { filter: '', channel: '' });

    expect(res.statusCode).toBe(200);
    expect(res.json().msg).toBe('Successfully retrieved 2 campaigns (all campaigns). Showing page 1 of 1.');
  });

  it('when filter, channel and paging combine, then total and pages count the filtered rows', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    for (let i = 0; i < 3; i++) {
      await f.campaign(app, p, { ad_network: 'my affiliate' });
    }
    const paused = await f.campaign(app, p, { ad_network: 'my affiliate' });
    await f.campaign(app, p, { ad_network: 'TIKTOK' });
    await app.inject({
      method: 'PATCH',
      url: `/api/v1/campaigns/${paused.display_id}`,
      headers: p.headers,
      payload: { active: false },
    });

    const res = await list(p, { filter: 'active', channel: 'My_Affiliate', page: '2', limit: '2' });

    expect(res.statusCode).toBe(200);
    expect(res.json().msg).toBe('Successfully retrieved 3 campaigns (active campaigns). Showing page 2 of 2.');
    expect(res.json().data.total_campaigns).toBe(3);
    expect(res.json().data.pagination).toEqual({ total: 3, pages: 2, page: 2, limit: 2 });
    expect(res.json().data.campaigns).toHaveLength(1);
  });

  it('when HEAD is sent to the list, then 404: no HEAD route (README)', async () => {
    const p = await newProject(h().deps);

    const res = await h().app.inject({ method: 'HEAD', url: '/api/v1/campaigns', headers: p.headers });

    expect(res.statusCode).toBe(404);
  });
});

describe('POST /api/v1/create-campaign custom display ids and the fixed routes', () => {
  it.each(['docs', 'HEALTHZ', 'Readyz', 'api', 'OpenAPI', 'well-known'])(
    'when custom_display_id is %s (a fixed route, any case), then 400 reserved',
    async (id) => {
      const p = await newProject(h().deps);

      const res = await create(p, { name: 'r', custom_display_id: id });

      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ msg: 'This display ID is reserved by the service; choose another!', status: 400 });
    },
  );

  it.each(['openapi.json', '.well-known', 'a/b', 'ünï'])(
    'when custom_display_id is %s, then 400 invalid',
    async (id) => {
      const p = await newProject(h().deps);

      const res = await create(p, { name: 'r', custom_display_id: id });

      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        msg: 'custom_display_id must be 1 to 64 characters: letters, digits, hyphens and underscores only!',
        status: 400,
      });
    },
  );

  it.each(['mcp', 'webhook'])(
    'when custom_display_id is %s (only a prefix of a fixed route), then its short link opens it',
    async (id) => {
      const { app, deps } = h();
      const p = await newProject(deps);
      const d = await f.domain(deps, p);
      await f.campaign(app, p, { custom_display_id: id, link_for_desktop_users: 'https://site.example.com/' });

      const res = await app.inject({ method: 'GET', url: `/${id}`, headers: { host: d.name, 'user-agent': ANDROID } });

      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe('https://site.example.com/');
    },
  );

  it('when the /healthz and /docs routes are asked on a link domain, then the fixed routes answer', async () => {
    const { deps, app } = h();
    const p = await newProject(deps);
    const d = await f.domain(deps, p);

    const health = await app.inject({ method: 'GET', url: '/healthz', headers: { host: d.name } });

    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({ status: 'ok' });
  });
});

describe('POST /api/v1/create-campaign URL fields', () => {
  it.each([
    'javascript://alert(1)',
    'JaVaScRiPt://alert(1)',
    'data://text/html,x',
    'myapp:no-slashes',
    'https://user:pw@example.com/',
    'https://[::1]/',
    `https://example.com/${'a'.repeat(2040)}`,
    'https://example.com/a b',
  ])('when deeplink is %s, then 400 with the deeplink text', async (deeplink) => {
    const p = await newProject(h().deps);

    const res = await create(p, { name: 'd', deeplink });

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ msg: 'deeplink must be a valid http(s) URL or app link!', status: 400 });
  });

  it('when a redirect URL has an internationalised host, then 201 and a desktop click goes to its ASCII form', async () => {
    const { deps, app } = h();
    const p = await newProject(deps);
    const d = await f.domain(deps, p);
    const c = await f.campaign(app, p, { link_for_desktop_users: 'https://bücher.example/straße' });

    const res = await app.inject({
      method: 'GET',
      url: `/${c.display_id}`,
      headers: {
        host: d.name,
        'user-agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36',
      },
    });

    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('https://xn--bcher-kva.example/stra%C3%9Fe');
  });
});

describe('PATCH / PUT / DELETE /api/v1/campaigns/{display_id}', () => {
  it('when PUT, PATCH and DELETE race on one campaign, then each answers a spec status and the campaign ends deleted', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const c = await f.campaign(app, p, { custom_display_id: `hc_${randomUUID().slice(0, 8)}` });

    const [put, patch, del] = await Promise.all([
      app.inject({
        method: 'PUT',
        url: `/api/v1/campaigns/${c.display_id}`,
        headers: p.headers,
        payload: { name: 'P' },
      }),
      app.inject({
        method: 'PATCH',
        url: `/api/v1/campaigns/${c.display_id}`,
        headers: p.headers,
        payload: { active: false },
      }),
      app.inject({ method: 'DELETE', url: `/api/v1/campaigns/${c.display_id}`, headers: p.headers }),
    ]);

    expect([200, 404]).toContain(put.statusCode);
    expect([200, 404]).toContain(patch.statusCode);
    expect(del.statusCode).toBe(204);
    expect((await f.campaignRow(deps, p, c.display_id))?.deleted_at).not.toBeNull();
    const again = await app.inject({ method: 'DELETE', url: `/api/v1/campaigns/${c.display_id}`, headers: p.headers });
    expect(again.json()).toEqual({ msg: 'Campaign not found!', status: 404 });
  });

  it('when the edit answers, then every spec field has its spec type', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const c = await f.campaign(app, p, { ad_network: 'meta' });

    const res = await app.inject({
      method: 'PATCH',
      url: `/api/v1/campaigns/${c.display_id}`,
      headers: p.headers,
      payload: { name: 'Renamed' },
    });

    expect(res.statusCode).toBe(200);
    expect(res.json().msg).toBe('Campaign updated successfully!');
    expect(res.json().data).toEqual({
      display_id: c.display_id,
      name: 'Renamed',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      update_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      google: false,
      meta: true,
      meta_campaign_id: null,
      meta_web_to_app: false,
      active: true,
      default_link: false,
      attributed_users: 0,
    });
  });
});
