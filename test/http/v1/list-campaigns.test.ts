// GET /api/v1/campaigns (spec: "GET /api/v1/campaigns", Pagination, Campaign). Newest first; the msg
// states count, scope and page; filters: status, channel (GOOGLE/META flags, TIKTOK & co, affiliate
// codes), domain (the effective one), link (?c=<id> or /<id>). Page/limit errors are 422 (spec),
// a bad filter value is 400 (our choice, catalog §4c). Rate limits are off: they have their own tests.
import { describe, expect, it } from 'vitest';
import { editCampaign } from '../../../src/domain/campaigns/edit-campaign.ts';
import * as f from '../../support/factories.ts';
import { newProject, type TestProject, useHarness } from '../../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

function list(p: TestProject, query: Record<string, string> | string = '') {
  const qs = typeof query === 'string' ? query : new URLSearchParams(query).toString();
  return h().app.inject({ method: 'GET', url: `/api/v1/campaigns${qs ? `?${qs}` : ''}`, headers: p.headers });
}

const ids = (body: { data: { campaigns: { display_id: string }[] } }) => body.data.campaigns.map((c) => c.display_id);

describe('GET /api/v1/campaigns', () => {
  describe('200', () => {
    it('when the project has no campaigns, then an empty page with the spec envelope', async () => {
      const p = await newProject(h().deps);

      const res = await list(p);

      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        msg: 'Successfully retrieved 0 campaigns (all campaigns). Showing page 1 of 0.',
        status: 200,
        data: { total_campaigns: 0, campaigns: [], pagination: { total: 0, pages: 0, page: 1, limit: 100 } },
      });
    });

    it('when campaigns exist, then every row has the spec fields and the newest comes first', async () => {
      const { app, deps } = h();
      const p = await newProject(deps);
      const primary = await f.domain(deps, p);
      const first = await f.campaign(app, p, { name: 'First' });
      const second = await f.campaign(app, p, { name: 'Second' });
      const third = await f.campaign(app, p, { name: 'Third' });
      const row = await f.campaignRow(deps, p, third.display_id);

      const res = await list(p);

      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.msg).toBe('Successfully retrieved 3 campaigns (all campaigns). Showing page 1 of 1.');
      expect(body.status).toBe(200);
      expect(body.data.total_campaigns).toBe(3);
      expect(body.data.pagination).toEqual({ total: 3, pages: 1, page: 1, limit: 100 });
      expect(ids(body)).toEqual([third.display_id, second.display_id, first.display_id]);
      expect(body.data.campaigns[0]).toEqual({
        display_id: third.display_id,
        name: 'Third',
        created_at: row?.created_at.toISOString(),
        update_at: row?.updated_at.toISOString(),
        google: false,
        meta: false,
        meta_campaign_id: null,
        meta_web_to_app: false,
        active: true,
        default_link: false,
        attributed_users: 0,
        link: `https://${primary.name}/?c=${third.display_id}`,
        shareable_link: `https://${primary.name}/${third.display_id}`,
        domain: primary.name,
        store_listings: [],
      });
    });

    it('when the project has no domain, then links use the service host and domain is null', async () => {
      const { app, deps } = h();
      const p = await newProject(deps);
      const c = await f.campaign(app, p);

      const res = await list(p);

      expect(res.statusCode).toBe(200);
      expect(res.json().data.campaigns[0]).toMatchObject({
        link: `https://attr.test/?c=${c.display_id}`,
        shareable_link: `https://attr.test/${c.display_id}`,
        domain: null,
      });
    });

    it('when the key comes in the linkrunner-key header, then it works like service-key', async () => {
      const { app, deps } = h();
      const p = await newProject(deps);
      const c = await f.campaign(app, p);

      const res = await app.inject({
        method: 'GET',
        url: '/api/v1/campaigns',
        headers: { 'linkrunner-key': p.serverKey },
      });

      expect(res.statusCode).toBe(200);
      expect(ids(res.json())).toEqual([c.display_id]);
    });

    it('when the header name is in another case and the value is padded, then the key still works', async () => {
      const { app, deps } = h();
      const p = await newProject(deps);

      const res = await app.inject({
        method: 'GET',
        url: '/api/v1/campaigns',
        headers: { 'Service-Key': `  ${p.serverKey}  ` },
      });

      expect(res.statusCode).toBe(200);
      expect(res.json().data.total_campaigns).toBe(0);
    });

    it("when another project has campaigns, then they never appear in this project's list", async () => {
      const { app, deps } = h();
      const a = await newProject(deps);
      const b = await newProject(deps);
      const mine = await f.campaign(app, a);
      await f.campaign(app, b);

      const res = await list(a);

      expect(res.statusCode).toBe(200);
      expect(ids(res.json())).toEqual([mine.display_id]);
      expect(res.json().data.total_campaigns).toBe(1);
    });

    describe('pagination', () => {
      async function fiveCampaigns(): Promise<{ p: TestProject; newestFirst: string[] }> {
        const { app, deps } = h();
        const p = await newProject(deps);
        const made: string[] = [];
        for (let i = 1; i <= 5; i++) {
          made.push((await f.campaign(app, p, { name: `C${i}` })).display_id);
        }
        return { p, newestFirst: made.reverse() };
      }

      it('when limit=2, then pages = ceil(total / limit) and each page holds the next rows', async () => {
        const { p, newestFirst } = await fiveCampaigns();

        const page1 = await list(p, { limit: '2' });
        const page2 = await list(p, { limit: '2', page: '2' });
        const page3 = await list(p, { limit: '2', page: '3' });

        expect(page1.statusCode).toBe(200);
        expect(page1.json().msg).toBe('Successfully retrieved 5 campaigns (all campaigns). Showing page 1 of 3.');
        expect(page1.json().data.pagination).toEqual({ total: 5, pages: 3, page: 1, limit: 2 });
        expect(ids(page1.json())).toEqual(newestFirst.slice(0, 2));
        expect(ids(page2.json())).toEqual(newestFirst.slice(2, 4));
        expect(page3.json().msg).toBe('Successfully retrieved 5 campaigns (all campaigns). Showing page 3 of 3.');
        expect(ids(page3.json())).toEqual(newestFirst.slice(4));
        expect(page3.json().data.pagination).toEqual({ total: 5, pages: 3, page: 3, limit: 2 });
      });

      it('when the page is past the end, then an empty page that still reports the total', async () => {
        const { p } = await fiveCampaigns();

        const res = await list(p, { limit: '2', page: '4' });

        expect(res.statusCode).toBe(200);
        expect(res.json()).toEqual({
          msg: 'Successfully retrieved 5 campaigns (all campaigns). Showing page 4 of 3.',
          status: 200,
          data: { total_campaigns: 5, campaigns: [], pagination: { total: 5, pages: 3, page: 4, limit: 2 } },
        });
      });

      it.each([
        ['1000001', 1_000_001, '1000001'],
        ['9007199254740991', Number.MAX_SAFE_INTEGER, '9007199254740991'],
        // Past 2^53 - 1 the echo is the nearest double: what a JavaScript client reads for the page it sent.
        ['99999999999999999999', 1e20, '100000000000000000000'],
      ])(
        'when page=%s (any positive integer past the end), then 200 with an empty page and the total',
        async (page, echo, shown) => {
          const { p } = await fiveCampaigns();

          const res = await list(p, { limit: '2', page });

          expect(res.statusCode).toBe(200);
          expect(res.json()).toEqual({
            msg: `Successfully retrieved 5 campaigns (all campaigns). Showing page ${shown} of 3.`,
            status: 200,
            data: { total_campaigns: 5, campaigns: [], pagination: { total: 5, pages: 3, page: echo, limit: 2 } },
          });
        },
      );

      it('when the page has more digits than a double holds, then 200 with an empty page and a finite page number', async () => {
        const { p } = await fiveCampaigns();

        const res = await list(p, { limit: '1000', page: '9'.repeat(400) });

        expect(res.statusCode).toBe(200);
        expect(res.json().data.campaigns).toEqual([]);
        expect(res.json().data.pagination).toEqual({ total: 5, pages: 1, page: Number.MAX_VALUE, limit: 1000 });
      });

      it('when limit=1000 (the maximum), then it is accepted', async () => {
        const { p, newestFirst } = await fiveCampaigns();

        const res = await list(p, { limit: '1000' });

        expect(res.statusCode).toBe(200);
        expect(res.json().data.pagination).toEqual({ total: 5, pages: 1, page: 1, limit: 1000 });
        expect(ids(res.json())).toEqual(newestFirst);
      });
    });

    describe('filter', () => {
      async function activeAndInactive() {
        const { app, deps } = h();
        const p = await newProject(deps);
        const on = await f.campaign(app, p, { name: 'On' });
        const off = await f.campaign(app, p, { name: 'Off' });
        await editCampaign(deps, p.project, { displayId: off.display_id, active: false });
        return { p, on, off };
      }

      it.each([
        ['ACTIVE', 'active campaigns', 'on'],
        ['active', 'active campaigns', 'on'],
        ['INACTIVE', 'inactive campaigns', 'off'],
        ['Inactive', 'inactive campaigns', 'off'],
      ] as const)('when filter=%s, then only %s are listed', async (filter, scope, which) => {
        const { p, on, off } = await activeAndInactive();
        const expected = which === 'on' ? on : off;

        const res = await list(p, { filter });

        expect(res.statusCode).toBe(200);
        expect(res.json().msg).toBe(`Successfully retrieved 1 campaigns (${scope}). Showing page 1 of 1.`);
        expect(ids(res.json())).toEqual([expected.display_id]);
        expect(res.json().data.campaigns[0].active).toBe(which === 'on');
      });

      it.each(['ALL', 'all', ''])('when filter=%j, then every campaign is listed', async (filter) => {
        const { p, on, off } = await activeAndInactive();

        const res = await list(p, { filter });

        expect(res.statusCode).toBe(200);
        expect(res.json().msg).toBe('Successfully retrieved 2 campaigns (all campaigns). Showing page 1 of 1.');
        expect(ids(res.json())).toEqual([off.display_id, on.display_id]);
      });
    });

    describe('channel', () => {
      async function campaignsOnNetworks() {
        const { app, deps } = h();
        const p = await newProject(deps);
        const plain = await f.campaign(app, p, { name: 'Plain' });
        const google = await f.campaign(app, p, { name: 'Search', ad_network: 'GOOGLE' });
        const meta = await f.campaign(app, p, { name: 'Social', ad_network: 'meta' });
        const tiktok = await f.campaign(app, p, { name: 'Shorts', ad_network: 'TikTok' });
        const affiliate = await f.campaign(app, p, { name: 'Partner', ad_network: 'Best Partner' });
        return { p, plain, google, meta, tiktok, affiliate };
      }

      it('when channel=GOOGLE, then only google campaigns, with google = true', async () => {
        const { p, google } = await campaignsOnNetworks();

        const res = await list(p, { channel: 'GOOGLE' });

        expect(res.statusCode).toBe(200);
        expect(ids(res.json())).toEqual([google.display_id]);
        expect(res.json().data.campaigns[0]).toMatchObject({ google: true, meta: false });
      });

      it.each(['META', 'meta', 'Meta'])(
        'when channel=%s, then only meta campaigns (case-insensitive)',
        async (channel) => {
          const { p, meta } = await campaignsOnNetworks();

          const res = await list(p, { channel });

          expect(res.statusCode).toBe(200);
          expect(res.json().msg).toBe('Successfully retrieved 1 campaigns (all campaigns). Showing page 1 of 1.');
          expect(ids(res.json())).toEqual([meta.display_id]);
          expect(res.json().data.campaigns[0]).toMatchObject({ google: false, meta: true });
        },
      );

      it('when channel=TIKTOK, then the campaigns on that network', async () => {
        const { p, tiktok } = await campaignsOnNetworks();

        const res = await list(p, { channel: 'tiktok' });

        expect(res.statusCode).toBe(200);
        expect(ids(res.json())).toEqual([tiktok.display_id]);
      });

      it.each(['best_partner', 'BEST_PARTNER'])(
        'when channel is the affiliate name %s, then its campaigns',
        async (channel) => {
          const { p, affiliate } = await campaignsOnNetworks();

          const res = await list(p, { channel });

          expect(res.statusCode).toBe(200);
          expect(ids(res.json())).toEqual([affiliate.display_id]);
        },
      );

      it('when channel is a known network with no campaigns, then an empty page', async () => {
        const { p } = await campaignsOnNetworks();

        const res = await list(p, { channel: 'APPLE_SEARCH_ADS' });

        expect(res.statusCode).toBe(200);
        expect(res.json().data).toEqual({
          total_campaigns: 0,
          campaigns: [],
          pagination: { total: 0, pages: 0, page: 1, limit: 100 },
        });
      });

      it("when channel is a network account's affiliate with no campaigns, then an empty page", async () => {
        const { deps } = h();
        const { p } = await campaignsOnNetworks();
        await f.networkAccount(deps, p, 'Other Partner');

        const res = await list(p, { channel: 'other_partner' });

        expect(res.statusCode).toBe(200);
        expect(res.json().data.total_campaigns).toBe(0);
      });

      it.each(['', '   '])('when channel=%j, then no channel filter applies', async (channel) => {
        const { p } = await campaignsOnNetworks();

        const res = await list(p, { channel });

        expect(res.statusCode).toBe(200);
        expect(res.json().data.total_campaigns).toBe(5);
      });
    });

    describe('domain', () => {
      it("when domain names a campaign's own domain, then only the campaigns shown on it", async () => {
        const { app, deps } = h();
        const p = await newProject(deps);
        const primary = await f.domain(deps, p);
        const second = await f.domain(deps, p);
        const onPrimary = await f.campaign(app, p);
        const onSecond = await f.campaign(app, p, { domain: second.name });

        const bySecond = await list(p, { domain: second.name });
        const byPrimary = await list(p, { domain: primary.name.toUpperCase() });

        expect(bySecond.statusCode).toBe(200);
        expect(ids(bySecond.json())).toEqual([onSecond.display_id]);
        expect(bySecond.json().data.campaigns[0]).toMatchObject({
          domain: second.name,
          link: `https://${second.name}/?c=${onSecond.display_id}`,
        });
        expect(byPrimary.statusCode).toBe(200);
        expect(ids(byPrimary.json())).toEqual([onPrimary.display_id]);
      });

      it('when a campaign has no domain of its own, then it shows and filters on the current primary domain', async () => {
        const { app, deps } = h();
        const p = await newProject(deps);
        const early = await f.campaign(app, p); // made before the project had any domain
        const primary = await f.domain(deps, p);

        const res = await list(p, { domain: primary.name });

        expect(res.statusCode).toBe(200);
        expect(ids(res.json())).toEqual([early.display_id]);
        expect(res.json().data.campaigns[0]).toMatchObject({
          domain: primary.name,
          link: `https://${primary.name}/?c=${early.display_id}`,
          shareable_link: `https://${primary.name}/${early.display_id}`,
        });
      });
    });

    describe('link', () => {
      async function twoOnADomain() {
        const { app, deps } = h();
        const p = await newProject(deps);
        const d = await f.domain(deps, p);
        const target = await f.campaign(app, p);
        await f.campaign(app, p);
        return { p, d, target };
      }

      it.each([
        ['?c=<id> on the project domain', (host: string, id: string) => `https://${host}/?c=${id}`],
        ['/<id> on the project domain', (host: string, id: string) => `https://${host}/${id}`],
        ['?c=<id> on the service host', (_host: string, id: string) => `https://attr.test/?c=${id}`],
        ['/<id> on the service host', (_host: string, id: string) => `https://attr.test/${id}`],
      ])('when link is %s, then only that campaign', async (_form, build) => {
        const { p, d, target } = await twoOnADomain();

        const res = await list(p, { link: build(d.name, target.display_id) });

        expect(res.statusCode).toBe(200);
        expect(res.json().msg).toBe('Successfully retrieved 1 campaigns (all campaigns). Showing page 1 of 1.');
        expect(ids(res.json())).toEqual([target.display_id]);
      });

      it('when link is the link the list itself returned, then it finds that campaign', async () => {
        const { p, target } = await twoOnADomain();
        const listed = (await list(p))
          .json()
          .data.campaigns.find((c: { display_id: string }) => c.display_id === target.display_id);

        const byLink = await list(p, { link: listed.link });
        const byShareable = await list(p, { link: listed.shareable_link });

        expect(ids(byLink.json())).toEqual([target.display_id]);
        expect(ids(byShareable.json())).toEqual([target.display_id]);
      });

      // spec: the 400 is for an invalid link or an unknown domain or campaign; a real campaign that
      // the other filters leave out is an empty page.
      it.each([
        ['filter=INACTIVE and the link of an active campaign', {}, { filter: 'INACTIVE' }, 'inactive campaigns'],
        [
          'channel=META and the link of a TIKTOK campaign',
          { ad_network: 'TIKTOK' },
          { channel: 'META' },
          'all campaigns',
        ],
      ])('when %s, then 200 with an empty page', async (_case, create, query, scope) => {
        const { app, deps } = h();
        const p = await newProject(deps);
        const c = await f.campaign(app, p, create);

        const res = await list(p, { ...query, link: c.link });

        expect(res.statusCode).toBe(200);
        expect(res.json()).toEqual({
          msg: `Successfully retrieved 0 campaigns (${scope}). Showing page 1 of 0.`,
          status: 200,
          data: { total_campaigns: 0, campaigns: [], pagination: { total: 0, pages: 0, page: 1, limit: 100 } },
        });
      });
    });

    it('when users registered through installs of campaigns, then attributed_users counts them per campaign', async () => {
      const { app, deps } = h();
      const p = await newProject(deps);
      const other = await newProject(deps);
      const a = await f.campaign(app, p, { name: 'A' });
      const b = await f.campaign(app, p, { name: 'B' });
      const none = await f.campaign(app, p, { name: 'None' });
      await f.installs(deps, p, a.id, ['u1', 'u1', 'u2', null]);
      await f.installs(deps, p, b.id, ['u3']);
      // u1 registered through campaign A's install; a later install of u1 on B does not move them.
      await f.installs(deps, p, b.id, ['u1']);
      await f.installs(deps, other, a.id, ['intruder']); // another project's row never counts

      const res = await list(p);

      expect(res.statusCode).toBe(200);
      const counts = Object.fromEntries(
        res
          .json()
          .data.campaigns.map((c: { display_id: string; attributed_users: number }) => [
            c.display_id,
            c.attributed_users,
          ]),
      );
      expect(counts).toEqual({ [a.display_id]: 2, [b.display_id]: 1, [none.display_id]: 0 });
    });

    it('when a campaign has store listings, then its row lists them (spec StoreListing shape)', async () => {
      const { app, deps } = h();
      const p = await newProject(deps);
      const ios = await f.storeListing(deps, p, 'IOS', 'App Store page');
      const android = await f.storeListing(deps, p, 'ANDROID', 'Play listing');
      const c = await f.campaign(app, p, { store_listing_ids: [ios.id, android.id] });
      await f.campaign(app, p, { name: 'No listings' });

      const res = await list(p, { link: `https://attr.test/?c=${c.display_id}` });

      expect(res.statusCode).toBe(200);
      expect(res.json().data.campaigns[0].store_listings).toEqual([
        { store_listing_id: android.id, name: 'Play listing', platform: 'ANDROID' },
        { store_listing_id: ios.id, name: 'App Store page', platform: 'IOS' },
      ]);
    });
  });

  describe('400', () => {
    it('when filter is not ACTIVE, INACTIVE or ALL, then 400 naming it', async () => {
      const p = await newProject(h().deps);

      const res = await list(p, { filter: 'paused' });

      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ msg: "Invalid filter 'paused'. Use ACTIVE, INACTIVE or ALL.", status: 400 });
    });

    it.each(['nope', "'; DROP TABLE campaigns;--", '%', '_', 'ünïcødé'])(
      'when channel=%j is unknown, then 400 echoing it',
      async (channel) => {
        const p = await newProject(h().deps);

        const res = await list(p, { channel });

        expect(res.statusCode).toBe(400);
        expect(res.json()).toEqual({ msg: `Invalid channel '${channel}'. Channel not found.`, status: 400 });
      },
    );

    it("when channel is another project's affiliate, then 400: it is unknown here", async () => {
      const { app, deps } = h();
      const a = await newProject(deps);
      const b = await newProject(deps);
      await f.campaign(app, a, { ad_network: 'Secret Partner' });

      const res = await list(b, { channel: 'secret_partner' });

      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ msg: "Invalid channel 'secret_partner'. Channel not found.", status: 400 });
    });

    it("when domain belongs to another project, then 400 with the spec's domain text", async () => {
      const { deps } = h();
      const a = await newProject(deps);
      const b = await newProject(deps);
      const theirs = await f.domain(deps, a);

      const res = await list(b, { domain: theirs.name });

      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        msg: `Invalid domain '${theirs.name}'. Domain not found for this project.`,
        status: 400,
      });
    });

    it('when domain is not registered at all, then 400 with the domain text', async () => {
      const p = await newProject(h().deps);

      const res = await list(p, { domain: 'nowhere.example.org' });

      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        msg: "Invalid domain 'nowhere.example.org'. Domain not found for this project.",
        status: 400,
      });
    });

    it('when domain holds a NUL character, then 400 with the domain text, not a Postgres error', async () => {
      const p = await newProject(h().deps);

      const res = await list(p, { domain: 'a\u0000.example.com' });

      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        msg: "Invalid domain 'a\u0000.example.com'. Domain not found for this project.",
        status: 400,
      });
    });

    describe('link', () => {
      it.each([
        ['not a URL', () => 'not a url at all'],
        ['a javascript: URL', () => 'javascript:alert(1)'],
        ['a link without a display id', () => 'https://attr.test/'],
        ['an unknown display id', () => 'https://attr.test/?c=doesnotexist'],
        ['a host that is not ours', () => 'https://evil.example.net/?c=abc'],
        ['?c= holding an encoded NUL', () => 'https://attr.test/?c=%00'],
        ['a path holding an encoded NUL', () => 'https://attr.test/%00'],
      ])('when link is %s, then 400 Invalid request parameters.', async (_case, build) => {
        const { app, deps } = h();
        const p = await newProject(deps);
        await f.campaign(app, p);

        const res = await list(p, { link: build() });

        expect(res.statusCode).toBe(400);
        expect(res.json()).toEqual({ msg: 'Invalid request parameters.', status: 400 });
      });

      it("when link points at another project's campaign, then 400 and nothing leaks", async () => {
        const { app, deps } = h();
        const a = await newProject(deps);
        const b = await newProject(deps);
        const theirDomain = await f.domain(deps, a);
        const theirs = await f.campaign(app, a);

        const viaServiceHost = await list(b, { link: `https://attr.test/?c=${theirs.display_id}` });
        const viaTheirDomain = await list(b, { link: `https://${theirDomain.name}/${theirs.display_id}` });

        for (const res of [viaServiceHost, viaTheirDomain]) {
          expect(res.statusCode).toBe(400);
          expect(res.json()).toEqual({ msg: 'Invalid request parameters.', status: 400 });
        }
      });

      it('when link points at a deleted campaign, then 400', async () => {
        const { app, deps } = h();
        const p = await newProject(deps);
        const c = await f.campaign(app, p);
        await app.inject({ method: 'DELETE', url: `/api/v1/campaigns/${c.display_id}`, headers: p.headers });

        const res = await list(p, { link: c.link });

        expect(res.statusCode).toBe(400);
        expect(res.json()).toEqual({ msg: 'Invalid request parameters.', status: 400 });
      });
    });

    it('when a filter parameter is repeated, then 400 Invalid request parameters.', async () => {
      const p = await newProject(h().deps);

      const res = await list(p, 'filter=ACTIVE&filter=INACTIVE');

      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ msg: 'Invalid request parameters.', status: 400 });
    });
  });

  describe('401', () => {
    it.each([
      ['no key', {}],
      ['an empty key', { 'service-key': '' }],
      ['a wrong key', { 'service-key': 'sk_not-a-real-key' }],
      ['two keys joined as a proxy would', { 'service-key': 'sk_a, sk_b' }],
    ])('when the request has %s, then 401 Unauthorized access.', async (_case, headers) => {
      const res = await h().app.inject({ method: 'GET', url: '/api/v1/campaigns', headers });

      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ msg: 'Unauthorized access.', status: 401 });
    });

    it('when the project token is sent as the key, then 401 Unauthorized access.', async () => {
      const p = await newProject(h().deps);

      const res = await h().app.inject({
        method: 'GET',
        url: '/api/v1/campaigns',
        headers: { 'service-key': p.token },
      });

      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ msg: 'Unauthorized access.', status: 401 });
    });

    it('when the key is sent in the query string instead of the header, then 401', async () => {
      const p = await newProject(h().deps);

      const res = await h().app.inject({
        method: 'GET',
        url: `/api/v1/campaigns?service-key=${encodeURIComponent(p.serverKey)}`,
      });

      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ msg: 'Unauthorized access.', status: 401 });
    });
  });

  describe('422', () => {
    it.each([
      ['page=0', "Invalid page number '0'. Page must be a positive integer."],
      ['page=-1', "Invalid page number '-1'. Page must be a positive integer."],
      ['page=1.5', "Invalid page number '1.5'. Page must be a positive integer."],
      ['page=abc', "Invalid page number 'abc'. Page must be a positive integer."],
      ['page=1e309', "Invalid page number '1e309'. Page must be a positive integer."],
      ['page=1%20OR%201%3D1', "Invalid page number '1 OR 1=1'. Page must be a positive integer."],
      ['page=1&page=2', "Invalid page number '1,2'. Page must be a positive integer."],
      ['limit=0', "Invalid limit '0'. Limit must be an integer between 1 and 1000."],
      ['limit=-5', "Invalid limit '-5'. Limit must be an integer between 1 and 1000."],
      ['limit=abc', "Invalid limit 'abc'. Limit must be an integer between 1 and 1000."],
      ['limit=2.5', "Invalid limit '2.5'. Limit must be an integer between 1 and 1000."],
      ['limit=1001', "Limit '1001' exceeds the maximum of 1000."],
      ['limit=100000000000000000000', "Limit '100000000000000000000' exceeds the maximum of 1000."],
    ])('when %s, then 422 with the text naming the value', async (query, msg) => {
      const p = await newProject(h().deps);

      const res = await list(p, query);

      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual({ msg, status: 422 });
    });
  });
});
