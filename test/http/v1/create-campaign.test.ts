// POST /api/v1/create-campaign (spec: "POST /api/v1/create-campaign", Created campaign; catalog
// §4c create-campaign, D4, D7). The domain defaults to the project's primary; listings must be the
// project's, one per platform; a custom display id is held by one project at most, deleted campaigns
// included (checked with 20 concurrent creates; across projects in campaigns-display-ids.test.ts and
// links/shared-host.test.ts); redirect fields are http(s) only. Rate limits are off: they have their own tests.
import { describe, expect, it } from 'vitest';
import { rotateServerKey } from '../../../src/domain/projects/rotate-server-key.ts';
import * as f from '../../support/factories.ts';
import { newProject, type TestProject, useHarness } from '../../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

function create(p: TestProject, payload: unknown) {
  return h().app.inject({
    method: 'POST',
    url: '/api/v1/create-campaign',
    headers: p.headers,
    payload: payload as object,
  });
}

/** Sends the body bytes as they are, with the JSON content type. */
function createRaw(p: TestProject, body: string) {
  return h().app.inject({
    method: 'POST',
    url: '/api/v1/create-campaign',
    headers: { ...p.headers, 'content-type': 'application/json' },
    payload: body,
  });
}

const RANDOM_ID = /^[A-Za-z0-9]{8}$/;

describe('POST /api/v1/create-campaign', () => {
  describe('201', () => {
    it('when every field is given, then 201 with the spec shape, and Postgres holds the campaign', async () => {
      const { deps } = h();
      const p = await newProject(deps);
      const primary = await f.domain(deps, p);
      const ios = await f.storeListing(deps, p, 'IOS', 'iOS page');
      const android = await f.storeListing(deps, p, 'ANDROID', 'Play page');

      const res = await create(p, {
        name: 'Summer Sale',
        deeplink: 'myapp://promo/summer',
        link_for_desktop_users: 'https://example.com/desktop',
        android_web_redirect: 'https://example.com/android',
        ios_web_redirect: 'http://example.com/ios',
        is_shortlink: true,
        store_listing_ids: [ios.id, android.id],
      });

      expect(res.statusCode).toBe(201);
      const body = res.json();
      const row = await f.campaignRow(deps, p, body.data.display_id);
      expect(body).toEqual({
        msg: 'Campaign created successfully!',
        status: 201,
        data: {
          id: row?.id,
          name: 'Summer Sale',
          link: `https://${primary.name}/?c=${body.data.display_id}`,
          website: null,
          display_id: expect.stringMatching(RANDOM_ID),
          created_at: row?.created_at.toISOString(),
          android_web_redirect: 'https://example.com/android',
          ios_web_redirect: 'http://example.com/ios',
          domain: primary.name,
          store_listings: [
            { store_listing_id: android.id, name: 'Play page', platform: 'ANDROID' },
            { store_listing_id: ios.id, name: 'iOS page', platform: 'IOS' },
          ],
        },
      });
      expect(typeof body.data.id).toBe('number');
      expect(row).toMatchObject({
        project_id: p.project.id,
        name: 'Summer Sale',
        deeplink: 'myapp://promo/summer',
        link_for_desktop_users: 'https://example.com/desktop',
        is_shortlink: true,
        website: null,
        domain_id: primary.id,
        active: true,
        deleted_at: null,
      });
      const links = await deps.sql`
        SELECT store_listing_id, platform FROM campaign_store_listings WHERE campaign_id = ${row?.id ?? 0}
        ORDER BY platform`;
      expect(links).toEqual([
        { store_listing_id: android.id, platform: 'ANDROID' },
        { store_listing_id: ios.id, platform: 'IOS' },
      ]);
    });

    it('when only a name is given, then defaults: primary domain, random display id, no listings', async () => {
      const { deps } = h();
      const p = await newProject(deps);
      await f.domain(deps, p);
      const primary = await f.domain(deps, p, { primary: true }); // the later primary wins

      const res = await create(p, { name: 'Bare' });

      expect(res.statusCode).toBe(201);
      const data = res.json().data;
      expect(data).toMatchObject({
        name: 'Bare',
        website: null,
        android_web_redirect: null,
        ios_web_redirect: null,
        domain: primary.name,
        store_listings: [],
      });
      expect(data.display_id).toMatch(RANDOM_ID);
      expect(data.link).toBe(`https://${primary.name}/?c=${data.display_id}`);
      expect((await f.campaignRow(deps, p, data.display_id))?.domain_id).toBe(primary.id);
    });

    it('when the project has no domain, then domain is null and the link is on the service host', async () => {
      const p = await newProject(h().deps);

      const res = await create(p, { name: 'No domain' });

      expect(res.statusCode).toBe(201);
      const data = res.json().data;
      expect(data.domain).toBeNull();
      expect(data.link).toBe(`https://attr.test/?c=${data.display_id}`);
    });

    it("when domain names one of the project's domains (any case), then the campaign uses it", async () => {
      const { deps } = h();
      const p = await newProject(deps);
      await f.domain(deps, p);
      const second = await f.domain(deps, p);

      const res = await create(p, { name: 'On second', domain: second.name.toUpperCase() });

      expect(res.statusCode).toBe(201);
      const data = res.json().data;
      expect(data.domain).toBe(second.name);
      expect(data.link).toBe(`https://${second.name}/?c=${data.display_id}`);
      expect((await f.campaignRow(deps, p, data.display_id))?.domain_id).toBe(second.id);
    });

    it('when is_shortlink is not true, then website is the desktop link, else an http(s) deeplink', async () => {
      const p = await newProject(h().deps);

      const desktop = await create(p, {
        name: 'Desktop',
        deeplink: 'https://example.com/app',
        link_for_desktop_users: 'https://example.com/desktop',
        is_shortlink: false,
      });
      const deeplinkOnly = await create(p, { name: 'Deeplink', deeplink: 'https://example.com/app' });
      const appScheme = await create(p, { name: 'App scheme', deeplink: 'myapp://path' });

      expect(desktop.statusCode).toBe(201);
      expect(desktop.json().data.website).toBe('https://example.com/desktop');
      expect(deeplinkOnly.json().data.website).toBe('https://example.com/app');
      expect(appScheme.json().data.website).toBeNull();
    });

    it('when custom_display_id is given, then it is the display id and the link carries it', async () => {
      const { deps } = h();
      const p = await newProject(deps);
      const d = await f.domain(deps, p);

      const res = await create(p, { name: 'Custom', custom_display_id: 'Spring_Sale-2025' });

      expect(res.statusCode).toBe(201);
      expect(res.json().data).toMatchObject({
        display_id: 'Spring_Sale-2025',
        link: `https://${d.name}/?c=Spring_Sale-2025`,
      });
      expect(await f.campaignRow(deps, p, 'Spring_Sale-2025')).toBeDefined();
    });

    it('when no custom_display_id is given, then each campaign gets a different random id', async () => {
      const p = await newProject(h().deps);

      const made = await Promise.all([1, 2, 3, 4, 5].map((i) => create(p, { name: `R${i}` })));

      const displayIds = made.map((r) => r.json().data.display_id);
      for (const id of displayIds) {
        expect(id).toMatch(RANDOM_ID);
      }
      expect(new Set(displayIds).size).toBe(5);
    });

    it.each([
      ['an emoji and ZWJ sequence', '🚀 Launch 👩‍👩‍👧 día', '🚀 Launch 👩‍👩‍👧 día'],
      ['RTL override and accents', 'Promo \u202eevil\u202c é', 'Promo \u202eevil\u202c é'],
      ['surrounding spaces', '  Trimmed  ', 'Trimmed'],
      ['500 characters (the maximum)', 'n'.repeat(500), 'n'.repeat(500)],
    ])(
      'when the name has %s, then it round-trips (trimmed) to the response and Postgres',
      async (_case, name, stored) => {
        const { deps } = h();
        const p = await newProject(deps);

        const res = await create(p, { name });

        expect(res.statusCode).toBe(201);
        expect(res.json().data.name).toBe(stored);
        expect((await f.campaignRow(deps, p, res.json().data.display_id))?.name).toBe(stored);
      },
    );

    it.each([
      ['deeplink', 'myapp://path/to?x=1'],
      ['deeplink', 'https://example.com/open'],
      ['deeplink', 'http://example.com/open'],
      ['link_for_desktop_users', 'http://example.com/d'],
      ['link_for_desktop_users', 'https://example.com/d?utm=1#x'],
      ['android_web_redirect', 'https://example.com/a'],
      ['ios_web_redirect', 'http://192.168.1.20/i'],
    ])('when %s is %s, then it is accepted and stored', async (field, url) => {
      const { deps } = h();
      const p = await newProject(deps);

      const res = await create(p, { name: 'Urls', [field]: url });

      expect(res.statusCode).toBe(201);
      const row = (await f.campaignRow(deps, p, res.json().data.display_id)) as unknown as Record<string, unknown>;
      expect(row[field]).toBe(url);
    });

    it('when the body carries fields the spec does not accept, then they are ignored (no mass assignment)', async () => {
      const { deps } = h();
      const p = await newProject(deps);
      const other = await newProject(deps);

      const res = await create(p, {
        name: 'Mass',
        id: 999_999,
        project_id: other.project.id,
        display_id: 'forced',
        active: false,
        google: true,
        meta: true,
        default_link: true,
        attributed_users: 9,
        website: 'https://evil.example.com',
        created_at: '2000-01-01T00:00:00.000Z',
      });

      expect(res.statusCode).toBe(201);
      const data = res.json().data;
      expect(data.id).not.toBe(999_999);
      expect(data.display_id).toMatch(RANDOM_ID);
      expect(data.website).toBeNull();
      expect(new Date(data.created_at).getUTCFullYear()).toBeGreaterThan(2000);
      expect(await f.campaignRow(deps, p, data.display_id)).toMatchObject({
        project_id: p.project.id,
        active: true,
        google: false,
        meta: false,
        website: null,
      });
      expect(await f.campaignRows(deps, other)).toEqual([]);
    });

    it.each([
      ['META', 'META', { meta: true, google: false }],
      ['google', 'GOOGLE', { meta: false, google: true }],
      ['Best Partner', 'BEST_PARTNER', { meta: false, google: false }],
    ])('when ad_network is %s (extension), then Postgres stores %s and the flags', async (adNetwork, code, flags) => {
      const { deps } = h();
      const p = await newProject(deps);

      const res = await create(p, { name: 'Net', ad_network: adNetwork });

      expect(res.statusCode).toBe(201);
      expect(await f.campaignRow(deps, p, res.json().data.display_id)).toMatchObject({ network: code, ...flags });
    });

    it('when the same store listing id is given twice, then it is assigned once', async () => {
      const { deps } = h();
      const p = await newProject(deps);
      const ios = await f.storeListing(deps, p, 'IOS');

      const res = await create(p, { name: 'Twice', store_listing_ids: [ios.id, ios.id] });

      expect(res.statusCode).toBe(201);
      expect(res.json().data.store_listings).toEqual([
        { store_listing_id: ios.id, name: 'IOS listing', platform: 'IOS' },
      ]);
    });

    it('when optional fields are null, then they count as absent', async () => {
      const p = await newProject(h().deps);

      const res = await create(p, {
        name: 'Nulls',
        deeplink: null,
        custom_display_id: null,
        is_shortlink: null,
        domain: null,
        store_listing_ids: null,
      });

      expect(res.statusCode).toBe(201);
      expect(res.json().data.display_id).toMatch(RANDOM_ID);
    });

    it('when the key comes in the linkrunner-key header, then it works like service-key', async () => {
      const { app, deps } = h();
      const p = await newProject(deps);

      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/create-campaign',
        headers: { 'linkrunner-key': p.serverKey },
        payload: { name: 'Via linkrunner-key' },
      });

      expect(res.statusCode).toBe(201);
      expect((await f.campaignRows(deps, p)).map((r) => r.name)).toEqual(['Via linkrunner-key']);
    });
  });

  describe('400', () => {
    async function expect400(p: TestProject, res: { statusCode: number; json: () => unknown }, msg: string) {
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ msg, status: 400 });
      expect(await f.campaignRows(h().deps, p)).toEqual([]);
    }

    it.each([
      ['missing', {}],
      ['empty', { name: '' }],
      ['blank', { name: '   ' }],
      ['null', { name: null }],
      ['a number', { name: 5 }],
    ])('when name is %s, then 400 Campaign name is required!', async (_case, body) => {
      const p = await newProject(h().deps);

      await expect400(p, await create(p, body), 'Campaign name is required!');
    });

    it.each([501, 10_000])('when name has %i characters, then 400 naming the maximum', async (n) => {
      const p = await newProject(h().deps);

      await expect400(p, await create(p, { name: 'x'.repeat(n) }), 'Campaign name must be at most 500 characters!');
    });

    it('when name contains a NUL character, then 400, not a Postgres error', async () => {
      const p = await newProject(h().deps);

      await expect400(p, await create(p, { name: 'a\u0000b' }), 'Invalid request parameters.');
    });

    it("when domain is another project's, then 400 Domain not found in project", async () => {
      const { deps } = h();
      const a = await newProject(deps);
      const b = await newProject(deps);
      await f.domain(deps, b);
      const theirs = await f.domain(deps, a);

      await expect400(b, await create(b, { name: 'X', domain: theirs.name }), 'Domain not found in project');
    });

    it.each(['unknown.example.org', 'a\u0000'])(
      'when domain is %j (not in the project), then 400 Domain not found in project',
      async (domain) => {
        const { deps } = h();
        const p = await newProject(deps);
        await f.domain(deps, p);

        await expect400(p, await create(p, { name: 'X', domain }), 'Domain not found in project');
      },
    );

    it('when domain is not a string, then 400 naming the field', async () => {
      const p = await newProject(h().deps);

      await expect400(p, await create(p, { name: 'X', domain: 5 }), 'domain must be a string!');
    });

    it.each([
      ['a string', 'x'],
      ['an empty string inside', ['']],
      ['a number inside', [1]],
      ['an object', { id: 'sl_1' }],
      ['a number', 7],
    ])('when store_listing_ids is %s, then 400 with the spec text', async (_case, ids) => {
      const p = await newProject(h().deps);

      await expect400(
        p,
        await create(p, { name: 'X', store_listing_ids: ids }),
        'store_listing_ids must be an array of non-empty strings!',
      );
    });

    it('when store_listing_ids names more than 20 ids, then 400 saying so and no campaign', async () => {
      const p = await newProject(h().deps);

      await expect400(
        p,
        await create(p, { name: 'X', store_listing_ids: Array.from({ length: 21 }, (_, i) => `sl_${i}`) }),
        'store_listing_ids may name at most 20 store listings!',
      );
    });

    it('when store listing ids are unknown, then 400 listing exactly the unknown ones', async () => {
      const { deps } = h();
      const p = await newProject(deps);
      const ios = await f.storeListing(deps, p, 'IOS');

      await expect400(
        p,
        await create(p, { name: 'X', store_listing_ids: ['sl_nope1', ios.id, 'sl_nope2'] }),
        'Store listing(s) not found for this project: sl_nope1, sl_nope2',
      );
    });

    it("when a store listing is another project's, then 400: not found for this project", async () => {
      const { deps } = h();
      const a = await newProject(deps);
      const b = await newProject(deps);
      const theirs = await f.storeListing(deps, a, 'ANDROID');

      await expect400(
        b,
        await create(b, { name: 'X', store_listing_ids: [theirs.id] }),
        `Store listing(s) not found for this project: ${theirs.id}`,
      );
    });

    it('when a store listing id holds a NUL character, then 400 not found, not a Postgres error', async () => {
      const p = await newProject(h().deps);

      await expect400(
        p,
        await create(p, { name: 'X', store_listing_ids: ['sl_\u0000'] }),
        'Store listing(s) not found for this project: sl_\u0000',
      );
    });

    it('when two listings share a platform, then 400 and no campaign', async () => {
      const { deps } = h();
      const p = await newProject(deps);
      const one = await f.storeListing(deps, p, 'IOS', 'one');
      const two = await f.storeListing(deps, p, 'IOS', 'two');

      await expect400(
        p,
        await create(p, { name: 'X', store_listing_ids: [one.id, two.id] }),
        'Cannot assign multiple store listings with the same platform to a campaign!',
      );
    });

    it('when another project already uses the custom_display_id, then 400: a display id names one campaign on the service host', async () => {
      const { deps } = h();
      const a = await newProject(deps);
      const b = await newProject(deps);
      await create(a, { name: 'A', custom_display_id: 'shared-id' });

      const res = await create(b, { name: 'B', custom_display_id: 'shared-id' });

      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ msg: 'A campaign with this display ID already exists!', status: 400 });
      expect(await f.campaignRows(deps, b)).toEqual([]);
    });

    it('when custom_display_id is already used in the project, then 400 and the first campaign is kept', async () => {
      const { deps } = h();
      const p = await newProject(deps);
      await create(p, { name: 'First', custom_display_id: 'taken' });

      const res = await create(p, { name: 'Second', custom_display_id: 'taken' });

      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ msg: 'A campaign with this display ID already exists!', status: 400 });
      expect((await f.campaignRows(deps, p)).map((r) => r.name)).toEqual(['First']);
    });

    it('when 20 creates of one custom_display_id race, then exactly one 201 and one row', async () => {
      const { deps } = h();
      const p = await newProject(deps);

      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => create(p, { name: `Racer ${i}`, custom_display_id: 'race' })),
      );

      const created = results.filter((r) => r.statusCode === 201);
      const refused = results.filter((r) => r.statusCode !== 201);
      expect(created).toHaveLength(1);
      expect(refused).toHaveLength(19);
      for (const r of refused) {
        expect(r.statusCode).toBe(400);
        expect(r.json()).toEqual({ msg: 'A campaign with this display ID already exists!', status: 400 });
      }
      const rows = await f.campaignRows(deps, p);
      expect(rows).toHaveLength(1);
      expect(rows[0]?.display_id).toBe('race');
      expect(rows[0]?.name).toBe(created[0]?.json().data.name);
    });

    it.each(['/', '..', '%2F', '?c=', '#', 'has space', '', 'x'.repeat(65), 'x'.repeat(256), 7])(
      'when custom_display_id is %j, then 400 with the allowed form',
      async (id) => {
        const p = await newProject(h().deps);

        await expect400(
          p,
          await create(p, { name: 'X', custom_display_id: id }),
          'custom_display_id must be 1 to 64 characters: letters, digits, hyphens and underscores only!',
        );
      },
    );

    const badWebUrls: [string, unknown][] = [
      ['javascript:', 'javascript:alert(1)'],
      ['data:', 'data:text/html,<script>alert(1)</script>'],
      ['file:', 'file:///etc/passwd'],
      ['vbscript:', 'vbscript:msgbox(1)'],
      ['ftp:', 'ftp://files.example.com/x'],
      ['scheme-relative', '//evil.example.com/x'],
      ['credentials before the host', 'https://good.example.com@evil.example.com/'],
      ['encoded CR/LF', 'https://good.example.com/%0d%0aSet-Cookie:%20x=1'],
      ['raw CR/LF', 'https://good.example.com/\r\nSet-Cookie: x=1'],
      ['a tab', 'https://good.example.com/\tx'],
      ['over 2KB', `https://good.example.com/${'a'.repeat(2100)}`],
      ['not a URL', 'not a url'],
      ['a number', 5],
    ];
    describe.each(['link_for_desktop_users', 'android_web_redirect', 'ios_web_redirect'])('%s', (field) => {
      it.each(badWebUrls)('when it is %s, then 400 naming the field', async (_case, url) => {
        const p = await newProject(h().deps);

        await expect400(p, await create(p, { name: 'X', [field]: url }), `${field} must be a valid http(s) URL!`);
      });
    });

    it.each([
      ['javascript:', 'javascript:alert(1)'],
      ['javascript://', 'javascript://%0aalert(1)'],
      ['data:', 'data:text/html,x'],
      ['file:', 'file:///etc/passwd'],
      ['vbscript:', 'vbscript://x'],
      ['scheme-relative', '//evil.example.com'],
      ['credentials before the host', 'https://good.example.com@evil.example.com'],
      ['encoded CR/LF', 'myapp://x%0D%0ASet-Cookie'],
      ['over 2KB', `myapp://${'a'.repeat(2100)}`],
      ['no scheme', 'just-text'],
    ])('when deeplink is %s, then 400 deeplink must be a valid http(s) URL or app link!', async (_case, url) => {
      const p = await newProject(h().deps);

      await expect400(
        p,
        await create(p, { name: 'X', deeplink: url }),
        'deeplink must be a valid http(s) URL or app link!',
      );
    });

    it('when is_shortlink is not a boolean, then 400', async () => {
      const p = await newProject(h().deps);

      await expect400(p, await create(p, { name: 'X', is_shortlink: 'true' }), 'is_shortlink must be a boolean!');
    });

    it('when ad_network has characters outside a network code, then 400', async () => {
      const p = await newProject(h().deps);

      await expect400(
        p,
        await create(p, { name: 'X', ad_network: 'meta; DROP' }),
        'ad_network must be a network code of letters, digits, spaces or underscores!',
      );
    });

    it.each([
      ['[]', '[]'],
      ['"s"', '"s"'],
      ['1', '1'],
      ['true', 'true'],
      ['an array nested 100k deep', `${'['.repeat(100_000)}${']'.repeat(100_000)}`],
    ])('when the body is %s, then 400 Request body must be a JSON object.', async (_case, body) => {
      const p = await newProject(h().deps);

      await expect400(p, await createRaw(p, body), 'Request body must be a JSON object.');
    });

    it('when the body is null, then 400: it is read as an empty body, so the name is missing', async () => {
      const p = await newProject(h().deps);

      await expect400(p, await createRaw(p, 'null'), 'Campaign name is required!');
    });

    it('when the body is empty with the JSON content type, then 400: no body, so the name is missing', async () => {
      const p = await newProject(h().deps);

      await expect400(p, await createRaw(p, ''), 'Campaign name is required!');
    });

    it.each([
      ['truncated JSON', '{"name":'],
      ['only whitespace', ' \n'],
      ['a __proto__ key', '{"name":"x","__proto__":{"admin":true}}'],
      ['a constructor.prototype key', '{"name":"x","constructor":{"prototype":{"admin":true}}}'],
    ])('when the body is %s, then 400 Invalid JSON body.', async (_case, body) => {
      const p = await newProject(h().deps);

      await expect400(p, await createRaw(p, body), 'Invalid JSON body.');
    });

    it('when the body is sent as text/plain, then 415 and nothing is created', async () => {
      const { app, deps } = h();
      const p = await newProject(deps);

      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/create-campaign',
        headers: { ...p.headers, 'content-type': 'text/plain' },
        payload: '{"name":"X"}',
      });

      expect(res.statusCode).toBe(415);
      expect(res.json()).toEqual({ msg: 'Unsupported content type. Send application/json.', status: 415 });
      expect(await f.campaignRows(deps, p)).toEqual([]);
    });
  });

  describe('401', () => {
    it.each([
      ['no key', {}],
      ['an empty key', { 'service-key': '' }],
    ])('when the request has %s, then 401 Server key missing!', async (_case, headers) => {
      const res = await h().app.inject({
        method: 'POST',
        url: '/api/v1/create-campaign',
        headers,
        payload: { name: 'X' },
      });

      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ msg: 'Server key missing!', status: 401 });
    });

    it('when the key is wrong, then 401 Server key invalid!', async () => {
      const res = await h().app.inject({
        method: 'POST',
        url: '/api/v1/create-campaign',
        headers: { 'service-key': 'sk_wrong' },
        payload: { name: 'X' },
      });

      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ msg: 'Server key invalid!', status: 401 });
    });

    it('when the project token is used as the key, then 401 Server key invalid! and nothing is created', async () => {
      const { app, deps } = h();
      const p = await newProject(deps);

      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/create-campaign',
        headers: { 'service-key': p.token },
        payload: { name: 'X' },
      });

      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ msg: 'Server key invalid!', status: 401 });
      expect(await f.campaignRows(deps, p)).toEqual([]);
    });

    it('when the key was rotated away, then the old key gets 401 Server key invalid!', async () => {
      const { deps } = h();
      const p = await newProject(deps);
      await rotateServerKey(deps, p.project.id);

      const res = await create(p, { name: 'X' });

      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ msg: 'Server key invalid!', status: 401 });
      expect(await f.campaignRows(deps, p)).toEqual([]);
    });
  });

  describe('415', () => {
    it('when the body is form-encoded, then 415 and nothing is created', async () => {
      const { app, deps } = h();
      const p = await newProject(deps);

      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/create-campaign',
        headers: { ...p.headers, 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'name=X',
      });

      expect(res.statusCode).toBe(415);
      expect(res.json()).toEqual({ msg: 'Unsupported content type. Send application/json.', status: 415 });
      expect(await f.campaignRows(deps, p)).toEqual([]);
    });
  });
});

describe('POST /api/v1/create-campaign reserved display ids', () => {
  it.each(['healthz', 'DOCS', 'readyz'])(
    'when custom_display_id is %s (a fixed path of the service), then 400 and nothing is created',
    async (id) => {
      const { app, deps } = h();
      const p = await newProject(deps);
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/create-campaign',
        headers: p.headers,
        payload: { name: 'Shadow', custom_display_id: id },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ msg: 'This display ID is reserved by the service; choose another!', status: 400 });
      expect(await f.campaignRows(deps, p)).toEqual([]);
    },
  );
});
