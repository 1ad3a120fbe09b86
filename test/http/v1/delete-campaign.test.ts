// DELETE /api/v1/campaigns/{display_id} (spec: 204 with an empty body). The row stays with
// deleted_at set, so its display id is never reused; another project's id is 404 (catalog D4).
// Rate limits are off: they have their own tests.
import { describe, expect, it } from 'vitest';
import * as f from '../../support/factories.ts';
import { newProject, type TestProject, useHarness } from '../../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

function remove(p: TestProject, displayId: string) {
  return h().app.inject({ method: 'DELETE', url: `/api/v1/campaigns/${displayId}`, headers: p.headers });
}

function listIds(p: TestProject): Promise<string[]> {
  return h()
    .app.inject({ method: 'GET', url: '/api/v1/campaigns', headers: p.headers })
    .then((res) => res.json().data.campaigns.map((c: { display_id: string }) => c.display_id));
}

describe('DELETE /api/v1/campaigns/:display_id', () => {
  describe('204', () => {
    it('when the campaign exists, then 204 with an empty body and the row is marked deleted', async () => {
      const { app, deps } = h();
      const p = await newProject(deps);
      const c = await f.campaign(app, p);

      const res = await remove(p, c.display_id);

      expect(res.statusCode).toBe(204);
      expect(res.body).toBe('');
      expect(res.headers['content-type']).toBeUndefined();
      const row = await f.campaignRow(deps, p, c.display_id);
      expect(row?.deleted_at).toBeInstanceOf(Date);
      expect(row?.active).toBe(false);
    });

    it('when it is sent with Content-Type: application/json and no body, then 204 and the row is marked deleted', async () => {
      // Many HTTP clients send the JSON content type on every request; an empty body is no body.
      const { app, deps } = h();
      const p = await newProject(deps);
      const c = await f.campaign(app, p);

      const res = await app.inject({
        method: 'DELETE',
        url: `/api/v1/campaigns/${c.display_id}`,
        headers: { ...p.headers, 'content-type': 'application/json' },
      });

      expect(res.statusCode).toBe(204);
      expect(res.body).toBe('');
      expect((await f.campaignRow(deps, p, c.display_id))?.deleted_at).toBeInstanceOf(Date);
    });

    it('when it is deleted, then it leaves the list and the other campaigns stay', async () => {
      const { app, deps } = h();
      const p = await newProject(deps);
      const keep = await f.campaign(app, p, { name: 'Keep' });
      const gone = await f.campaign(app, p, { name: 'Gone' });

      await remove(p, gone.display_id);

      expect(await listIds(p)).toEqual([keep.display_id]);
      expect((await f.campaignRow(deps, p, keep.display_id))?.deleted_at).toBeNull();
    });

    it('when it is deleted, then PATCH and a second DELETE answer 404', async () => {
      const { app, deps } = h();
      const p = await newProject(deps);
      const c = await f.campaign(app, p);
      await remove(p, c.display_id);

      const patch = await app.inject({
        method: 'PATCH',
        url: `/api/v1/campaigns/${c.display_id}`,
        headers: p.headers,
        payload: { active: true },
      });
      const again = await remove(p, c.display_id);

      for (const res of [patch, again]) {
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({ msg: 'Campaign not found!', status: 404 });
      }
      expect((await f.campaignRow(deps, p, c.display_id))?.active).toBe(false);
    });

    it('when it is deleted, then its display id cannot be reused by a new campaign', async () => {
      const { app, deps } = h();
      const p = await newProject(deps);
      await f.campaign(app, p, { name: 'Old', custom_display_id: 'reserved' });
      await remove(p, 'reserved');

      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/create-campaign',
        headers: p.headers,
        payload: { name: 'New', custom_display_id: 'reserved' },
      });

      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ msg: 'A campaign with this display ID already exists!', status: 400 });
      expect((await f.campaignRows(deps, p)).map((r) => r.name)).toEqual(['Old']);
    });

    it('when the key comes in the linkrunner-key header, then it works like service-key', async () => {
      const { app, deps } = h();
      const p = await newProject(deps);
      const c = await f.campaign(app, p);

      const res = await app.inject({
        method: 'DELETE',
        url: `/api/v1/campaigns/${c.display_id}`,
        headers: { 'linkrunner-key': p.serverKey },
      });

      expect(res.statusCode).toBe(204);
      expect((await f.campaignRow(deps, p, c.display_id))?.deleted_at).toBeInstanceOf(Date);
    });
  });

  describe('400', () => {
    it.each([
      ['a blank path segment', '/api/v1/campaigns/%20'],
      ['a trailing slash and no id', '/api/v1/campaigns/'],
      ['no id', '/api/v1/campaigns'],
    ])('when the URL has %s, then 400 Campaign display ID is required!', async (_case, url) => {
      const p = await newProject(h().deps);

      const res = await h().app.inject({ method: 'DELETE', url, headers: p.headers });

      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ msg: 'Campaign display ID is required!', status: 400 });
    });
  });

  describe('401', () => {
    it('when no key is sent, then 401 Server key missing! and the campaign stays', async () => {
      const { app, deps } = h();
      const p = await newProject(deps);
      const c = await f.campaign(app, p);

      const res = await app.inject({ method: 'DELETE', url: `/api/v1/campaigns/${c.display_id}` });

      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ msg: 'Server key missing!', status: 401 });
      expect((await f.campaignRow(deps, p, c.display_id))?.deleted_at).toBeNull();
    });

    it.each([
      ['a wrong key', (_p: TestProject) => 'sk_wrong'],
      ['the project token', (p: TestProject) => p.token],
    ])('when the key is %s, then 401 Server key invalid! and the campaign stays', async (_case, key) => {
      const { app, deps } = h();
      const p = await newProject(deps);
      const c = await f.campaign(app, p);

      const res = await app.inject({
        method: 'DELETE',
        url: `/api/v1/campaigns/${c.display_id}`,
        headers: { 'service-key': key(p) },
      });

      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ msg: 'Server key invalid!', status: 401 });
      expect((await f.campaignRow(deps, p, c.display_id))?.deleted_at).toBeNull();
    });
  });

  describe('404', () => {
    it.each([
      ['unknown', 'doesNotExist'],
      ['holding a NUL character', '%00'],
    ])('when the display id is %s, then 404 Campaign not found!', async (_case, displayId) => {
      const p = await newProject(h().deps);

      const res = await remove(p, displayId);

      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ msg: 'Campaign not found!', status: 404 });
    });

    it("when the display id is another project's, then 404 and their campaign is untouched", async () => {
      const { app, deps } = h();
      const owner = await newProject(deps);
      const intruder = await newProject(deps);
      const c = await f.campaign(app, owner, { name: 'Theirs' });

      const res = await remove(intruder, c.display_id);

      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ msg: 'Campaign not found!', status: 404 });
      expect(await f.campaignRow(deps, owner, c.display_id)).toMatchObject({ deleted_at: null, active: true });
      expect(await listIds(owner)).toEqual([c.display_id]);
    });
  });
});
