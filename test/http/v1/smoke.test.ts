// Smoke: the harness boots the app over the test stores and a project's key reaches /api/v1.
import { describe, expect, it } from 'vitest';
import { newProject, useHarness } from '../../support/harness.ts';

const h = useHarness();

describe('GET /api/v1/campaigns', () => {
  it('when the project has no campaigns, then 200 with an empty page', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const res = await app.inject({ method: 'GET', url: '/api/v1/campaigns', headers: p.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      msg: 'Successfully retrieved 0 campaigns (all campaigns). Showing page 1 of 0.',
      status: 200,
      data: { total_campaigns: 0, campaigns: [], pagination: { total: 0, pages: 0, page: 1, limit: 100 } },
    });
  });
});
