// The re-engagement inactivity window: a cold start runs init, then reports the campaign
// deeplink; the window is measured against the open before that init, not the init itself.
import { describe, expect, it } from 'vitest';
import { setAttributionSettings } from '../../../src/domain/projects/set-attribution-settings.ts';
import {
  attributedInstall,
  attributionFacts,
  campaignWithListings,
  flushFacts,
  init,
  openCampaignLink,
  useClientHarness,
} from '../../support/client.ts';
import { newProject } from '../../support/harness.ts';

const h = useClientHarness();

async function coldStartWithDeeplink(daysInactive: number) {
  const p = await newProject(h().deps);
  await setAttributionSettings(h().deps, p.project.id, { reengagement_inactivity_days: 7 });
  const { iid } = await attributedInstall(h(), p);
  const promo = await campaignWithListings(h().deps, p, { name: 'Promo', deeplink: 'myapp://promo' });
  // The install was last active `daysInactive` days ago.
  await h().deps.sql`UPDATE installs SET last_seen_at = now() - make_interval(days => ${daysInactive}),
    created_at = now() - make_interval(days => ${daysInactive + 30})
    WHERE project_id = ${p.project.id} AND install_instance_id = ${iid}`;
  expect((await init(h(), p.token, { install_instance_id: iid })).statusCode).toBe(202);
  const res = await openCampaignLink(h(), p.token, iid, promo.displayId);
  expect(res.statusCode).toBe(200);
  await flushFacts(h());
  const reengagements = (await attributionFacts(h().deps, p)).filter((f) => f.kind === 'reengagement');
  return { promo, reengagements };
}

describe('re-engagement inactivity window (7 days)', () => {
  it('when the install was inactive for 10 days before the cold start, then the deeplink records a re-engagement', async () => {
    const { promo, reengagements } = await coldStartWithDeeplink(10);
    expect(reengagements).toHaveLength(1);
    expect(reengagements[0]?.campaign_id).toBe(promo.id);
  });

  it('when the install was active 2 days before the cold start, then no re-engagement is recorded', async () => {
    const { reengagements } = await coldStartWithDeeplink(2);
    expect(reengagements).toEqual([]);
  });
});
