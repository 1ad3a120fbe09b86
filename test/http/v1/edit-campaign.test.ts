// PATCH /api/v1/campaigns/{display_id} (spec: edit campaign; PUT is served too because the
// reference's code sample uses it). Only name and active change (catalog API3: no mass assignment);
// the four 400s come in the spec's order; another project's id is 404 (catalog D4).
// Rate limits are off: they have their own tests.
import { describe, expect, it } from 'vitest';
import * as f from '../../support/factories.ts';
import { newProject, type TestProject, useHarness } from '../../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

function edit(p: TestProject, displayId: string, payload?: unknown, method: 'PATCH' | 'PUT' = 'PATCH') {
  return h().app.inject({
    method,
    url: `/api/v1/campaigns/${displayId}`,
    headers: p.headers,
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

async function projectWithCampaign(name = 'Original') {
  const { app, deps } = h();
  const p = await newProject(deps);
  const c = await f.campaign(app, p, { name });
  return { p, c };
}

describe('PATCH /api/v1/campaigns/:display_id', () => {
  describe('200', () => {
    it('when the name changes, then 200 with the spec data and Postgres holds the new name', async () => {
      const { deps } = h();
      const { p, c } = await projectWithCampaign();
      const before = await f.campaignRow(deps, p, c.display_id);

      const res = await edit(p, c.display_id, { name: 'Renamed' });

      expect(res.statusCode).toBe(200);
      const after = await f.campaignRow(deps, p, c.display_id);
      expect(res.json()).toEqual({
        msg: 'Campaign updated successfully!',
        status: 200,
        data: {
          display_id: c.display_id,
          name: 'Renamed',
          created_at: before?.created_at.toISOString(),
          update_at: after?.updated_at.toISOString(),
          google: false,
          meta: false,
          meta_campaign_id: null,
          meta_web_to_app: false,
          active: true,
          default_link: false,
          attributed_users: 0,
        },
      });
      expect(after?.name).toBe('Renamed');
      // Compared in Postgres: microseconds there, milliseconds once in a JS Date.
      const [moved] = await deps.sql<{ later: boolean }[]>`
        SELECT updated_at > created_at AS later FROM campaigns WHERE id = ${c.id}`;
      expect(moved?.later).toBe(true);
    });

    it('when the method is PUT, then it edits like PATCH', async () => {
      const { deps } = h();
      const { p, c } = await projectWithCampaign();

      const res = await edit(p, c.display_id, { name: 'Put name', active: false }, 'PUT');

      expect(res.statusCode).toBe(200);
      expect(res.json().msg).toBe('Campaign updated successfully!');
      expect(res.json().data).toMatchObject({ name: 'Put name', active: false });
      expect(await f.campaignRow(deps, p, c.display_id)).toMatchObject({ name: 'Put name', active: false });
    });

    it('when active goes false then true, then Postgres follows and the name is kept', async () => {
      const { deps } = h();
      const { p, c } = await projectWithCampaign('Keep me');

      const off = await edit(p, c.display_id, { active: false });
      const rowOff = await f.campaignRow(deps, p, c.display_id);
      const on = await edit(p, c.display_id, { active: true });
      const rowOn = await f.campaignRow(deps, p, c.display_id);

      expect(off.statusCode).toBe(200);
      expect(off.json().data).toMatchObject({ active: false, name: 'Keep me' });
      expect(rowOff).toMatchObject({ active: false, name: 'Keep me' });
      expect(on.statusCode).toBe(200);
      expect(on.json().data).toMatchObject({ active: true, name: 'Keep me' });
      expect(rowOn).toMatchObject({ active: true, name: 'Keep me' });
    });

    it('when the name has surrounding spaces or emoji, then it is stored trimmed and unchanged otherwise', async () => {
      const { deps } = h();
      const { p, c } = await projectWithCampaign();

      const res = await edit(p, c.display_id, { name: '  🎉 Fête 👩‍💻  ' });

      expect(res.statusCode).toBe(200);
      expect(res.json().data.name).toBe('🎉 Fête 👩‍💻');
      expect((await f.campaignRow(deps, p, c.display_id))?.name).toBe('🎉 Fête 👩‍💻');
    });

    it('when the campaign has attributed users, then attributed_users counts them', async () => {
      const { deps } = h();
      const { p, c } = await projectWithCampaign();
      await f.installs(deps, p, c.id, ['u1', 'u2', 'u2', null]);

      const res = await edit(p, c.display_id, { active: false });

      expect(res.statusCode).toBe(200);
      expect(res.json().data.attributed_users).toBe(2);
    });

    it('when an ad-network campaign is edited, then google/meta are reported and kept', async () => {
      const { app, deps } = h();
      const p = await newProject(deps);
      const c = await f.campaign(app, p, { ad_network: 'META' });

      const res = await edit(p, c.display_id, { name: 'Social' });

      expect(res.statusCode).toBe(200);
      expect(res.json().data).toMatchObject({ name: 'Social', meta: true, google: false });
      expect(await f.campaignRow(deps, p, c.display_id)).toMatchObject({ meta: true, network: 'META' });
    });

    it('when the body carries other fields, then only name/active change (no mass assignment)', async () => {
      const { deps } = h();
      const { p, c } = await projectWithCampaign();
      const other = await newProject(deps);
      const before = await f.campaignRow(deps, p, c.display_id);

      const res = await edit(p, c.display_id, {
        name: 'Only this',
        meta: true,
        google: true,
        attributed_users: 9,
        project_id: other.project.id,
        display_id: 'hijacked',
        default_link: true,
        created_at: '2000-01-01T00:00:00.000Z',
      });

      expect(res.statusCode).toBe(200);
      expect(res.json().data).toMatchObject({
        display_id: c.display_id,
        name: 'Only this',
        meta: false,
        google: false,
        attributed_users: 0,
        default_link: false,
        created_at: before?.created_at.toISOString(),
      });
      expect(await f.campaignRow(deps, p, c.display_id)).toMatchObject({
        project_id: p.project.id,
        display_id: c.display_id,
        name: 'Only this',
        meta: false,
        google: false,
        created_at: before?.created_at,
      });
      expect(await f.campaignRows(deps, other)).toEqual([]);
    });
  });

  describe('400', () => {
    it.each([
      ['a blank path segment', '/api/v1/campaigns/%20'],
      ['a trailing slash and no id', '/api/v1/campaigns/'],
      ['no id', '/api/v1/campaigns'],
    ])('when the URL has %s, then 400 Campaign display ID is required!', async (_case, url) => {
      const p = await newProject(h().deps);

      const res = await h().app.inject({ method: 'PATCH', url, headers: p.headers, payload: { name: 'X' } });

      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ msg: 'Campaign display ID is required!', status: 400 });
    });

    it('when the display id is blank and the body empty, then the display id text comes first', async () => {
      const p = await newProject(h().deps);

      const res = await edit(p, '%20', {});

      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ msg: 'Campaign display ID is required!', status: 400 });
    });

    it.each([
      ['{}', {}],
      ['no body', undefined],
      ['only other fields', { meta: true }],
    ])(
      'when the body is %s, then 400 At least one field (name or active) is required for update!',
      async (_case, body) => {
        const { deps } = h();
        const { p, c } = await projectWithCampaign('Unchanged');

        const res = await edit(p, c.display_id, body);

        expect(res.statusCode).toBe(400);
        expect(res.json()).toEqual({ msg: 'At least one field (name or active) is required for update!', status: 400 });
        expect(await f.campaignRow(deps, p, c.display_id)).toMatchObject({ name: 'Unchanged', active: true });
      },
    );

    it.each([
      ['blank', '  '],
      ['empty', ''],
      ['null', null],
      ['a number', 5],
    ])('when name is %s, then 400 Campaign name cannot be empty!', async (_case, name) => {
      const { deps } = h();
      const { p, c } = await projectWithCampaign('Unchanged');

      const res = await edit(p, c.display_id, { name });

      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ msg: 'Campaign name cannot be empty!', status: 400 });
      expect((await f.campaignRow(deps, p, c.display_id))?.name).toBe('Unchanged');
    });

    it.each([
      ['the string "true"', 'true'],
      ['1', 1],
      ['null', null],
    ])('when active is %s, then 400 Active field must be a boolean!', async (_case, active) => {
      const { deps } = h();
      const { p, c } = await projectWithCampaign();

      const res = await edit(p, c.display_id, { active });

      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ msg: 'Active field must be a boolean!', status: 400 });
      expect((await f.campaignRow(deps, p, c.display_id))?.active).toBe(true);
    });

    it('when name is blank and active is a string, then the name text comes first (spec order)', async () => {
      const { p, c } = await projectWithCampaign();

      const res = await edit(p, c.display_id, { name: '  ', active: 'true' });

      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ msg: 'Campaign name cannot be empty!', status: 400 });
    });

    it('when name is valid but active is not a boolean, then 400 and the name is not changed', async () => {
      const { deps } = h();
      const { p, c } = await projectWithCampaign('Unchanged');

      const res = await edit(p, c.display_id, { name: 'New', active: 'false' });

      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ msg: 'Active field must be a boolean!', status: 400 });
      expect((await f.campaignRow(deps, p, c.display_id))?.name).toBe('Unchanged');
    });

    it('when name is longer than 500 characters, then 400 naming the maximum', async () => {
      const { p, c } = await projectWithCampaign();

      const res = await edit(p, c.display_id, { name: 'x'.repeat(501) });

      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ msg: 'Campaign name must be at most 500 characters!', status: 400 });
    });

    it('when name contains a NUL character, then 400, not a Postgres error', async () => {
      const { deps } = h();
      const { p, c } = await projectWithCampaign('Unchanged');

      const res = await edit(p, c.display_id, { name: 'a\u0000b' });

      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ msg: 'Invalid request parameters.', status: 400 });
      expect((await f.campaignRow(deps, p, c.display_id))?.name).toBe('Unchanged');
    });

    it.each(['[]', '"s"', '1'])('when the body is %s, then 400 Request body must be a JSON object.', async (body) => {
      const { p, c } = await projectWithCampaign();

      const res = await h().app.inject({
        method: 'PATCH',
        url: `/api/v1/campaigns/${c.display_id}`,
        headers: { ...p.headers, 'content-type': 'application/json' },
        payload: body,
      });

      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ msg: 'Request body must be a JSON object.', status: 400 });
    });

    it('when the body is empty with Content-Type: application/json, then 400 At least one field (name or active) is required for update!', async () => {
      // An empty body is no body (not a JSON error): the route answers its own spec text.
      const { p, c } = await projectWithCampaign('Unchanged');

      const res = await h().app.inject({
        method: 'PATCH',
        url: `/api/v1/campaigns/${c.display_id}`,
        headers: { ...p.headers, 'content-type': 'application/json' },
        payload: '',
      });

      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ msg: 'At least one field (name or active) is required for update!', status: 400 });
      expect((await f.campaignRow(h().deps, p, c.display_id))?.name).toBe('Unchanged');
    });

    it('when the body is not valid JSON, then 400 Invalid JSON body.', async () => {
      const { p, c } = await projectWithCampaign();

      const res = await h().app.inject({
        method: 'PATCH',
        url: `/api/v1/campaigns/${c.display_id}`,
        headers: { ...p.headers, 'content-type': 'application/json' },
        payload: '{"active":',
      });

      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ msg: 'Invalid JSON body.', status: 400 });
    });
  });

  describe('401', () => {
    it('when no key is sent, then 401 Server key missing! and nothing changes', async () => {
      const { deps } = h();
      const { p, c } = await projectWithCampaign('Unchanged');

      const res = await h().app.inject({
        method: 'PATCH',
        url: `/api/v1/campaigns/${c.display_id}`,
        payload: { name: 'X' },
      });

      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ msg: 'Server key missing!', status: 401 });
      expect((await f.campaignRow(deps, p, c.display_id))?.name).toBe('Unchanged');
    });

    it.each([
      ['a wrong key', (_p: TestProject) => 'sk_wrong'],
      ['the project token', (p: TestProject) => p.token],
    ])('when the key is %s, then 401 Server key invalid! and nothing changes', async (_case, key) => {
      const { deps } = h();
      const { p, c } = await projectWithCampaign('Unchanged');

      const res = await h().app.inject({
        method: 'PATCH',
        url: `/api/v1/campaigns/${c.display_id}`,
        headers: { 'service-key': key(p) },
        payload: { name: 'X' },
      });

      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ msg: 'Server key invalid!', status: 401 });
      expect((await f.campaignRow(deps, p, c.display_id))?.name).toBe('Unchanged');
    });

    it('when the key comes in the linkrunner-key header, then it works like service-key', async () => {
      const { deps } = h();
      const { p, c } = await projectWithCampaign();

      const res = await h().app.inject({
        method: 'PATCH',
        url: `/api/v1/campaigns/${c.display_id}`,
        headers: { 'linkrunner-key': p.serverKey },
        payload: { name: 'Via linkrunner-key' },
      });

      expect(res.statusCode).toBe(200);
      expect((await f.campaignRow(deps, p, c.display_id))?.name).toBe('Via linkrunner-key');
    });
  });

  describe('404', () => {
    it.each([
      ['unknown', 'doesNotExist'],
      ['holding a NUL character', '%00'],
    ])('when the display id is %s, then 404 Campaign not found!', async (_case, displayId) => {
      const { p } = await projectWithCampaign();

      const res = await edit(p, displayId, { name: 'X' });

      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ msg: 'Campaign not found!', status: 404 });
    });

    it("when the display id is another project's, then 404 and their campaign is untouched", async () => {
      const { deps } = h();
      const { p: owner, c } = await projectWithCampaign('Theirs');
      const intruder = await newProject(deps);

      const patched = await edit(intruder, c.display_id, { name: 'Hijacked', active: false });
      const put = await edit(intruder, c.display_id, { name: 'Hijacked' }, 'PUT');

      for (const res of [patched, put]) {
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({ msg: 'Campaign not found!', status: 404 });
      }
      expect(await f.campaignRow(deps, owner, c.display_id)).toMatchObject({ name: 'Theirs', active: true });
    });

    it('when the campaign was deleted, then 404', async () => {
      const { app } = h();
      const { p, c } = await projectWithCampaign();
      await app.inject({ method: 'DELETE', url: `/api/v1/campaigns/${c.display_id}`, headers: p.headers });

      const res = await edit(p, c.display_id, { active: true });

      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ msg: 'Campaign not found!', status: 404 });
    });
  });
});
