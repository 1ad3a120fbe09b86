// handle-deeplink retries around other campaigns. README "Attribution": "the same campaign opened
// again within 3 minutes is an SDK retry and records nothing (the iOS SDK sends one report up to 5
// times, each attempt timing out at 30 s, with 30 s of backoff between them), also when the two
// requests arrive at once". The retry of A can come after the user opened B: the install keeps its
// re-engagements of the last 3 minutes (Postgres installs.prior_reengagements, migration 0030) and
// checks the retry on its locked row.
import { describe, expect, it } from 'vitest';
import { attributedInstall, campaignWithListings, flushFacts, openCampaignLink } from '../../support/client.ts';
import { chJson, newProject, type TestProject, useHarness } from '../../support/harness.ts';
import { campaignRow } from '../../support/remarketing.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

/** The campaign ids of the project's re-engagements, in the order recorded. */
async function reengaged(p: TestProject): Promise<number[]> {
  await flushFacts(h());
  const rows = await chJson<{ campaign_id: number }>(
    h().deps.ch,
    `SELECT campaign_id FROM attributions WHERE project_id = {p:String} AND kind = 'reengagement' ORDER BY ts`,
    { p: p.project.id },
  );
  return rows.map((r) => r.campaign_id);
}

async function priorReengagements(p: TestProject, iid: string): Promise<Record<string, number>> {
  const [row] = await h().deps.sql<{ prior_reengagements: Record<string, number> }[]>`
    SELECT prior_reengagements FROM installs WHERE project_id = ${p.project.id} AND install_instance_id = ${iid}`;
  return row?.prior_reengagements ?? {};
}

/** An attributed install and campaigns A, B and C with deeplinks. */
async function setUp() {
  const { deps } = h();
  const p = await newProject(deps);
  const { iid } = await attributedInstall(h(), p, { name: 'Install' });
  const campaign = (name: string) => campaignWithListings(deps, p, { name, deeplink: `myapp://${name.toLowerCase()}` });
  return { p, iid, a: await campaign('A'), b: await campaign('B'), c: await campaign('C') };
}

/** Opens `displayId` with the API's clock `laterMs` ahead (the SDK's retry comes that much later). */
async function openLater(p: TestProject, iid: string, displayId: string, laterMs: number) {
  const { deps } = h();
  const realNow = deps.now;
  deps.now = () => realNow() + laterMs;
  try {
    return await openCampaignLink(h(), p.token, iid, displayId);
  } finally {
    deps.now = realNow;
  }
}

describe('SDK retries of handle-deeplink with another campaign in between', () => {
  it('when campaign A is opened, then B, then A again within 3 minutes, then A is recorded once', async () => {
    const { p, iid, a, b } = await setUp();

    await openCampaignLink(h(), p.token, iid, a.displayId); // iOS: stored, its answer lost (30 s timeout)
    await openCampaignLink(h(), p.token, iid, b.displayId); // the user opens another campaign's link
    const retry = await openLater(p, iid, a.displayId, 150_000); // the SDK's retry of the first request

    expect(retry.statusCode).toBe(200);
    expect(retry.json().data).toEqual({ deeplink: 'myapp://a', is_linkrunner: true, processing: false });
    expect(await reengaged(p)).toEqual([a.id, b.id]);
    expect(await campaignRow(h(), p, a.id, 'view=retargeting')).toMatchObject({ reengagements: '1' });
    expect(await campaignRow(h(), p, b.id, 'view=retargeting')).toMatchObject({ reengagements: '1' });
  });

  it('when A, B and C are opened, then A again within 3 minutes, then A is still a retry', async () => {
    const { p, iid, a, b, c } = await setUp();

    for (const x of [a, b, c, a]) {
      await openCampaignLink(h(), p.token, iid, x.displayId);
    }

    expect(await reengaged(p)).toEqual([a.id, b.id, c.id]);
    expect(Object.keys(await priorReengagements(p, iid)).sort()).toEqual([String(a.id), String(b.id)].sort());
  });

  it('when A is opened again after 3 minutes with B in between, then A is recorded twice', async () => {
    const { p, iid, a, b } = await setUp();

    await openCampaignLink(h(), p.token, iid, a.displayId);
    await openCampaignLink(h(), p.token, iid, b.displayId);
    await openLater(p, iid, a.displayId, 3 * 60_000 + 1_000);

    expect(await reengaged(p)).toEqual([a.id, b.id, a.id]);
    expect(await campaignRow(h(), p, a.id, 'view=retargeting')).toMatchObject({ reengagements: '2' });
  });

  it('when the retry of A after B arrives three times at once, then A is still recorded once', async () => {
    const { p, iid, a, b } = await setUp();
    await openCampaignLink(h(), p.token, iid, a.displayId);
    await openCampaignLink(h(), p.token, iid, b.displayId);

    const retries = await Promise.all([1, 2, 3].map(() => openCampaignLink(h(), p.token, iid, a.displayId)));

    expect(retries.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect(await reengaged(p)).toEqual([a.id, b.id]);
  });

  it('when the next re-engagement comes after 3 minutes, then the earlier ones are dropped from the install', async () => {
    const { p, iid, a, b, c } = await setUp();
    await openCampaignLink(h(), p.token, iid, a.displayId);
    await openCampaignLink(h(), p.token, iid, b.displayId);

    await openLater(p, iid, c.displayId, 3 * 60_000 + 1_000);

    expect(await reengaged(p)).toEqual([a.id, b.id, c.id]);
    expect(await priorReengagements(p, iid)).toEqual({});
  });
});
