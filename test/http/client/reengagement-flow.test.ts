// Re-engagements end to end. README "Attribution": a campaign link opened by an attributed install
// (handle-deeplink) records a `reengagement` (method deeplink, inactivity window 0 days by
// default, reattribution window 90 days, both in its windows); README "Reporting":
// view=retargeting shows reinstalls and reengagements, counted on the window's project-local days;
// revenue goes to the capture's campaign. product-notes "Testing": remarketing tests show under the
// Retargeting view (Reengagement +1).
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { setAttributionSettings } from '../../../src/domain/projects/set-attribution-settings.ts';
import { localDay } from '../../../src/lib/time.ts';
import {
  attribute,
  attributedInstall,
  attributionData,
  campaignWithListings,
  flushFacts,
  init,
  openCampaignLink,
  post,
} from '../../support/client.ts';
import { chJson, newProject, type TestProject, useHarness } from '../../support/harness.ts';
import { campaignRow } from '../../support/remarketing.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

type Decision = { kind: string; campaign_id: number; day: string; method: string; windows: string };

async function decisions(p: TestProject): Promise<Decision[]> {
  await flushFacts(h());
  return chJson<Decision>(
    h().deps.ch,
    `SELECT kind, campaign_id, toString(day) AS day, method, windows FROM attributions
     WHERE project_id = {p:String} ORDER BY ts`,
    { p: p.project.id },
  );
}

describe('a re-engagement through handle-deeplink', () => {
  it('when an install of campaign A opens a link of campaign B, then B gets one re-engagement on the project-local day and A keeps its install', async () => {
    const { deps } = h();
    // +14:00: the local day is not the UTC day for 14 hours of every day.
    const p = await newProject(deps, { timezone: 'Pacific/Kiritimati' });
    const { campaign: a, iid } = await attributedInstall(h(), p, { name: 'A' });
    const b = await campaignWithListings(deps, p, { name: 'B', deeplink: 'myapp://b' });

    const res = await openCampaignLink(h(), p.token, iid, b.displayId);

    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({ deeplink: 'myapp://b', is_linkrunner: true, processing: false });
    const today = localDay(Date.now(), 'Pacific/Kiritimati');
    const ds = await decisions(p);
    expect(ds.map((d) => [d.kind, d.campaign_id])).toEqual([
      ['install', a.id],
      ['reengagement', b.id],
    ]);
    expect(ds[1]?.day).toBe(today);
    expect(JSON.parse(ds[1]?.windows ?? '{}')).toEqual({
      reattribution_window_ms: 90 * 86_400_000,
      reengagement_inactivity_ms: 0,
    });
    const q = `from=${today}&to=${today}`;
    expect(await campaignRow(h(), p, b.id, `${q}&view=retargeting`)).toMatchObject({
      reengagements: '1',
      reinstalls: '0',
    });
    expect(await campaignRow(h(), p, a.id, `${q}&view=retargeting`)).toMatchObject({
      reengagements: '0',
      installs: '1',
    });
    expect(await campaignRow(h(), p, a.id, q)).toMatchObject({ installs: '1' });
    expect(await campaignRow(h(), p, b.id, q)).toMatchObject({ installs: '0' });
  });

  it('when the re-engaged install is asked for its attribution, then attribution-data and get-attribution-result still name the install campaign', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const { campaign: a, iid, gaid } = await attributedInstall(h(), p, { name: 'A' });
    const b = await campaignWithListings(deps, p, { name: 'B', deeplink: 'myapp://b' });
    await openCampaignLink(h(), p.token, iid, b.displayId);

    const ad = await attributionData(h(), p.token, iid);
    const gr = await h().app.inject({
      method: 'GET',
      url: `/api/v1/get-attribution-result?device_identifier=${gaid}`,
      headers: p.headers,
    });

    expect(ad.json().data.campaign_data.id).toBe(a.displayId);
    expect(gr.json().data).toMatchObject({
      display_id: a.displayId,
      match: { method: 'play_referrer', reinstall: false },
    });
  });

  it('when an organic install opens a campaign link, then it re-engages with that campaign', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const b = await campaignWithListings(deps, p, { name: 'B' });
    const iid = randomUUID();
    await init(h(), p.token, { install_instance_id: iid });
    await attribute(h(), p, iid);

    await openCampaignLink(h(), p.token, iid, b.displayId);

    expect((await decisions(p)).map((d) => [d.kind, d.campaign_id])).toEqual([
      ['install', 0],
      ['reengagement', b.id],
    ]);
    expect(await campaignRow(h(), p, b.id, 'view=retargeting')).toMatchObject({ reengagements: '1', installs: '0' });
  });

  it("when a payment follows the re-engagement, then its revenue goes to the install campaign (the capture's campaign), not to B", async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const { campaign: a, iid } = await attributedInstall(h(), p, { name: 'A' });
    const b = await campaignWithListings(deps, p, { name: 'B', deeplink: 'myapp://b' });
    const userId = `u-${randomUUID()}`;
    await post(h(), 'trigger', {
      token: p.token,
      platform: 'ANDROID',
      install_instance_id: iid,
      user_data: { id: userId },
      data: {},
    });
    await openCampaignLink(h(), p.token, iid, b.displayId);
    const pay = await post(h(), 'capture-payment', {
      token: p.token,
      platform: 'ANDROID',
      install_instance_id: iid,
      user_id: userId,
      amount: 12.5,
      payment_id: `pay-${randomUUID()}`,
    });
    expect(pay.statusCode).toBe(201);
    await flushFacts(h());

    const [row] = await chJson<{ campaign_id: number; reengagement_campaign_id: number }>(
      deps.ch,
      'SELECT campaign_id, reengagement_campaign_id FROM payments WHERE project_id = {p:String}',
      { p: p.project.id },
    );
    expect(row).toEqual({ campaign_id: a.id, reengagement_campaign_id: b.id });
    expect(await campaignRow(h(), p, a.id, 'view=retargeting')).toMatchObject({ revenue: '$12.50' });
    expect(await campaignRow(h(), p, b.id, 'view=retargeting')).toMatchObject({ revenue: '$0.00', reengagements: '1' });
  });

  it('when the inactivity window is 1 day and the last open was 25 h ago, then a deeplink after a cold start re-engages; 23 h ago it does not', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    await setAttributionSettings(deps, p.project.id, { reengagement_inactivity_days: 1 });
    const b = await campaignWithListings(deps, p, { name: 'B' });
    const counts: number[] = [];
    for (const hoursAgo of [25, 23]) {
      const { iid } = await attributedInstall(h(), p, { name: `A${hoursAgo}` });
      await deps.sql`UPDATE installs SET last_seen_at = now() - make_interval(hours => ${hoursAgo}),
        created_at = now() - interval '40 days'
        WHERE project_id = ${p.project.id} AND install_instance_id = ${iid}`;
      await init(h(), p.token, { install_instance_id: iid });
      await openCampaignLink(h(), p.token, iid, b.displayId);
      counts.push((await decisions(p)).filter((d) => d.kind === 'reengagement').length);
    }
    expect(counts).toEqual([1, 1]);
  });

  it('when a campaign link is opened before any init of that install, then nothing is recorded and no 5xx', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const b = await campaignWithListings(deps, p, { name: 'B' });
    const res = await openCampaignLink(h(), p.token, 'ABCDEFGHIJKLMNOPQRST', b.displayId);
    expect(res.statusCode).toBe(200);
    expect(await decisions(p)).toEqual([]);
  });
});
