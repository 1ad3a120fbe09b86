// Display ids on the service's own host (README "Campaign links": a project with no domain gets
// links on PUBLIC_URL; "Link handler": there the id alone names the campaign). A display id is held
// by one project at most, deleted campaigns included, so no tenant can break or take over another
// tenant's printed link; an id two projects held before that rule (made here by renaming a row, as
// an older database may hold them) opens nothing on the service host, while each project's own
// domain still opens its own campaign. Rate limits are off.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { flushAllFacts } from '../../../src/domain/facts/flush-facts.ts';
import * as f from '../../support/factories.ts';
import { newProject, type TestProject, useHarness } from '../../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

const SERVICE_HOST = 'attr.test'; // the harness's PUBLIC_URL host
const ANDROID =
  'Mozilla/5.0 (Linux; Android 13; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.144 Mobile Safari/537.36';
const TAKEN = { msg: 'A campaign with this display ID already exists!', status: 400 };
const uniqueId = () => `sh_${randomUUID().replaceAll('-', '').slice(0, 20)}`;

/** Opens a link URL as an Android browser would (Host from the URL). */
function open(link: string) {
  const u = new URL(link);
  return h().app.inject({
    method: 'GET',
    url: `${u.pathname}${u.search}`,
    headers: { host: u.host, 'user-agent': ANDROID },
  });
}

function create(p: TestProject, body: Record<string, unknown>) {
  return h().app.inject({ method: 'POST', url: '/api/v1/create-campaign', headers: p.headers, payload: body });
}

/** Gives a campaign another project's display id, as a database from before the rule may hold it. */
async function renameRow(campaignId: number, displayId: string): Promise<void> {
  await h().deps.sql`UPDATE campaigns SET display_id = ${displayId} WHERE id = ${campaignId}`;
}

async function clickCount(p: TestProject): Promise<number> {
  const { deps } = h();
  await flushAllFacts(deps, ['clicks']);
  const rs = await deps.ch.query({
    query: 'SELECT toUInt32(count()) AS n FROM clicks WHERE project_id = {p:String}',
    query_params: { p: p.project.id },
    format: 'JSONEachRow',
  });
  return (await rs.json<{ n: number }>())[0]?.n ?? 0;
}

describe('display ids on the shared service host', () => {
  it.each([
    ['another domainless project', false],
    ['a project with its own link domain', true],
  ])(
    "when a domainless project's campaign has an id and %s creates it too, then 400 taken and the first link keeps working",
    async (_who, otherHasDomain) => {
      const { app, deps } = h();
      const a = await newProject(deps);
      const b = await newProject(deps);
      if (otherHasDomain) {
        await f.domain(deps, b);
      }
      const id = uniqueId();
      const mine = await f.campaign(app, a, {
        custom_display_id: id,
        link_for_desktop_users: 'https://a.example.com/',
      });
      expect(mine.link).toBe(`https://${SERVICE_HOST}/?c=${id}`);

      const theirs = await create(b, { name: 'B', custom_display_id: id });
      const after = await open(mine.link);

      expect(theirs.statusCode).toBe(400);
      expect(theirs.json()).toEqual(TAKEN);
      expect(await f.campaignRows(deps, b)).toEqual([]);
      expect({ status: after.statusCode, location: after.headers.location }).toEqual({
        status: 302,
        location: 'https://a.example.com/',
      });
    },
  );

  it('when a project deleted a campaign and another project asks for its display id, then 400 taken and the old link opens nothing', async () => {
    const { app, deps } = h();
    const a = await newProject(deps);
    const b = await newProject(deps);
    const id = uniqueId();
    const old = await f.campaign(app, a, { custom_display_id: id, link_for_desktop_users: 'https://a.example.com/' });
    const del = await app.inject({ method: 'DELETE', url: `/api/v1/campaigns/${id}`, headers: a.headers });
    expect(del.statusCode).toBe(204);

    const theirs = await create(b, { name: 'B', custom_display_id: id });
    const res = await open(old.link); // A's printed link, still out in the world

    expect(theirs.json()).toEqual(TAKEN);
    expect(await f.campaignRows(deps, b)).toEqual([]);
    expect(res.statusCode).toBe(404);
    expect(res.headers.location).toBeUndefined();
  });

  it('when two projects create one display id at once, then exactly one 201 and one row', async () => {
    const { deps } = h();
    const projects = await Promise.all([1, 2, 3, 4].map(() => newProject(deps)));
    const id = uniqueId();

    const answers = await Promise.all(projects.map((p) => create(p, { name: 'Racer', custom_display_id: id })));

    expect(answers.map((r) => r.statusCode).sort()).toEqual([201, 400, 400, 400]);
    for (const r of answers.filter((x) => x.statusCode === 400)) {
      expect(r.json()).toEqual(TAKEN);
    }
    const rows = await deps.sql`SELECT project_id FROM campaigns WHERE display_id = ${id}`;
    expect(rows).toHaveLength(1);
  });

  it("when an older database holds one id in a deleted campaign and in another tenant's live one, then the service host answers 404 and records no click", async () => {
    const { app, deps } = h();
    const a = await newProject(deps);
    const b = await newProject(deps);
    const id = uniqueId();
    const old = await f.campaign(app, a, { custom_display_id: id });
    await app.inject({ method: 'DELETE', url: `/api/v1/campaigns/${id}`, headers: a.headers });
    const reused = await f.campaign(app, b, { link_for_desktop_users: 'https://b.example.com/' });
    await renameRow(reused.id, id);

    const res = await open(old.link);

    expect(res.statusCode).toBe(404);
    expect(res.headers.location).toBeUndefined();
    expect(await clickCount(b)).toBe(0);
  });

  it('when an older database holds one live id in two projects with their own domains, then each domain opens its own campaign and the service host 404', async () => {
    const { app, deps } = h();
    const a = await newProject(deps);
    const b = await newProject(deps);
    await f.domain(deps, a);
    await f.domain(deps, b);
    const id = uniqueId();
    const ca = await f.campaign(app, a, { custom_display_id: id, link_for_desktop_users: 'https://a.example.com/' });
    const cb = await f.campaign(app, b, { link_for_desktop_users: 'https://b.example.com/' });
    await renameRow(cb.id, id);

    const ra = await open(ca.link);
    const rb = await open(cb.link.replace(cb.display_id, id));
    const shared = await open(`https://${SERVICE_HOST}/?c=${id}`);

    expect([ra.statusCode, ra.headers.location]).toEqual([302, 'https://a.example.com/']);
    expect([rb.statusCode, rb.headers.location]).toEqual([302, 'https://b.example.com/']);
    expect(shared.statusCode).toBe(404);
  });
});
