// attribution-data after the install's campaign is deleted. Apps call it on every launch (real-clients
// §4.2: no client cache) and a final answer is cached 24 h (memory in embedded mode, Redis in
// service mode); README (DELETE /api/v1/campaigns/{display_id}): "get-attribution-result and
// attribution-data then answer its installs as organic". A cached campaign answer is served only
// while its campaign is live (live-campaigns.ts); a paused campaign still answers.
import { describe, expect, it } from 'vitest';
import { attributionCacheKey } from '../../../src/domain/identity/read-attribution.ts';
import { attributedInstall, attributionData, processRedisUrl, useClientHarness } from '../../support/client.ts';
import { type Harness, newProject, type TestProject } from '../../support/harness.ts';

const h = useClientHarness();

const ORGANIC = { deeplink: null, campaign_data: null, attribution_source: 'ORGANIC' };

function deleteCampaign(x: Harness, p: TestProject, displayId: string) {
  return x.app.inject({ method: 'DELETE', url: `/api/v1/campaigns/${displayId}`, headers: p.headers });
}

describe('200', () => {
  it('when the campaign is deleted after the app read its attribution once, then attribution-data answers organic, not the cached campaign', async () => {
    const p = await newProject(h().deps);
    const { campaign, iid } = await attributedInstall(h(), p);
    const first = await attributionData(h(), p.token, iid);
    expect(first.json().data.campaign_data).toMatchObject({ id: campaign.displayId });

    const del = await deleteCampaign(h(), p, campaign.displayId);
    const after = await attributionData(h(), p.token, iid);

    expect(del.statusCode).toBe(204);
    expect(after.json().data).toEqual(ORGANIC);
    expect(JSON.parse((await h().deps.cache.get(attributionCacheKey(p.project.id, iid))) ?? '{}')).toEqual(ORGANIC);
  });

  it('when the campaign is deleted before the app ever read its attribution, then attribution-data answers organic', async () => {
    const p = await newProject(h().deps);
    const { campaign, iid } = await attributedInstall(h(), p);
    await deleteCampaign(h(), p, campaign.displayId);

    const after = await attributionData(h(), p.token, iid);

    expect(after.json().data).toEqual(ORGANIC);
  });

  it('when another process deleted the campaign after the answer was cached, then attribution-data answers organic', async () => {
    const p = await newProject(h().deps);
    const { campaign, iid } = await attributedInstall(h(), p);
    await attributionData(h(), p.token, iid);

    // The row as another API process's DELETE leaves it: this process's lookups were not told.
    await h().deps.sql`UPDATE campaigns SET deleted_at = now(), active = false
      WHERE project_id = ${p.project.id} AND id = ${campaign.id}`;
    const after = await attributionData(h(), p.token, iid);

    expect(after.json().data).toEqual(ORGANIC);
  });

  it('when the campaign is only paused after the answer was cached, then the campaign answer is still served', async () => {
    const p = await newProject(h().deps);
    const { campaign, iid } = await attributedInstall(h(), p);
    const first = await attributionData(h(), p.token, iid);

    const paused = await h().app.inject({
      method: 'PATCH',
      url: `/api/v1/campaigns/${campaign.displayId}`,
      headers: p.headers,
      payload: { active: false },
    });
    const after = await attributionData(h(), p.token, iid);

    expect(paused.statusCode).toBe(200);
    expect(after.json()).toEqual(first.json());
    expect(after.json().data.campaign_data).toMatchObject({ id: campaign.displayId });
  });
});

describe.skipIf(!processRedisUrl())('200, service mode (the answer cached in Redis)', () => {
  const r = useClientHarness({ REDIS_URL: processRedisUrl() ?? '' });

  it('when the campaign is deleted after the answer was cached in Redis, then attribution-data answers organic and Redis holds the organic answer', async () => {
    const p = await newProject(r().deps);
    const { campaign, iid } = await attributedInstall(r(), p);
    await attributionData(r(), p.token, iid);
    const key = attributionCacheKey(p.project.id, iid);
    expect(JSON.parse((await r().deps.cache.get(key)) ?? '{}').campaign_data).toMatchObject({
      id: campaign.displayId,
    });

    const del = await deleteCampaign(r(), p, campaign.displayId);
    const after = await attributionData(r(), p.token, iid);

    expect(del.statusCode).toBe(204);
    expect(after.json().data).toEqual(ORGANIC);
    expect(JSON.parse((await r().deps.cache.get(key)) ?? '{}')).toEqual(ORGANIC);
  });
});
