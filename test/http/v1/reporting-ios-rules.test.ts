// GET /api/v1/reporting/campaigns: product-notes "iOS limitations" (for iOS-only campaigns revenue, ROAS, CPI,
// CPS, sign-ups, uninstalls, suspicious installs, retention, active users and custom events are
// shown as "-") at every level of the row (README "Reporting": "at every level"), campaigns with
// both platforms left alone, and "-" sorting last.
import { describe, expect, it } from 'vitest';
import * as f from '../../support/factories.ts';
import { newProject, type TestProject, useHarness } from '../../support/harness.ts';
import * as r from '../../support/report-facts.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

type Obj = Record<string, unknown>;
type Row = Obj & { id: number; name: string };

async function report(p: TestProject, query = ''): Promise<Row[]> {
  const res = await h().app.inject({
    method: 'GET',
    url: `/api/v1/reporting/campaigns${query ? `?${query}` : ''}`,
    headers: p.headers,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.campaigns;
}

const D = '2025-02-10';

async function seed(p: TestProject, campaignId: number, platform: 'IOS' | 'ANDROID') {
  const { deps } = h();
  const cr = { campaignId, adSetId: 'as1', adSetName: 'Set', creativeId: 'cr1', creativeName: 'Cr' };
  const kw = { campaignId, adSetId: 'as1', adSetName: 'Set', keywordId: 'kw1', keywordName: 'kw' };
  const [x, y] = [r.newInstall(cr, D, platform), r.newInstall(kw, D, platform)] as const;
  await r.insertFacts(deps, 'attributions', [r.attribution(p, x, { suspicious: true }), r.attribution(p, y)]);
  await r.insertFacts(deps, 'install_events', [r.installEvent(p, x), r.installEvent(p, y)]);
  await r.insertFacts(deps, 'signups', [r.signup(p, x, `u-${campaignId}`)]);
  await r.insertFacts(deps, 'events', [r.event(p, x, `u-${campaignId}`, 'lvl', D, '3'), r.event(p, y, 'v', 'lvl', D)]);
  await r.insertFacts(deps, 'payments', [r.payment(p, x, `u-${campaignId}`, D, '7')]);
  await r.insertFacts(deps, 'spend', [r.spend(p, cr, D, '20')]);
}

const HIDDEN_LEVEL = {
  'sign-ups': '-',
  revenue: '-',
  conversion: '-',
  roas: '-',
  cost_per_install: '-',
  cost_per_signup: '-',
  retention: { d1: '-', d7: '-' },
  custom_events: { lvl: '-' },
  cost_per_custom_events: { lvl: '-' },
};

describe('reporting: iOS-only rules', () => {
  it('when a campaign is iOS-only, then ad sets, creatives and keywords show "-" for the hidden metrics', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const ios = await f.storeListing(deps, p, 'IOS');
    const c = await f.campaign(app, p, { name: 'iOS nested', store_listing_ids: [ios.id] });
    await seed(p, c.id, 'IOS');

    const row = (await report(p, 'cost_per_event=lvl&unique_user_events=lvl')).find((x) => x.id === c.id) as Row;

    expect(row).toMatchObject({ ...HIDDEN_LEVEL, installs: '2', spend: '$20.00', suspicious_installs: '-' });
    const as = (row.adSets as Obj[])[0] as Obj;
    expect(as).toMatchObject({
      ...HIDDEN_LEVEL,
      installs: '2',
      suspicious_installs: '-',
      daywise_revenue: { d0: '-', d3: '-', d7: '-', d30: '-' },
    });
    expect((as.adCreatives as Obj[])[0]).toMatchObject({ ...HIDDEN_LEVEL, id: 'cr1', installs: '1' });
    expect((as.keywords as Obj[])[0]).toMatchObject({
      ...HIDDEN_LEVEL,
      id: 'kw1',
      installs: '1',
      suspicious_installs: '-',
    });
    expect((row.keywords as Obj[])[0]).toMatchObject({ ...HIDDEN_LEVEL, id: 'kw1', suspicious_installs: '-' });
  });

  it('when a campaign has both listings and only iOS facts, then nothing is hidden', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const ios = await f.storeListing(deps, p, 'IOS');
    const play = await f.storeListing(deps, p, 'ANDROID');
    const c = await f.campaign(app, p, { name: 'Both', store_listing_ids: [ios.id, play.id] });
    await seed(p, c.id, 'IOS');

    const row = (await report(p, 'cost_per_event=lvl&to=2025-02-10')).find((x) => x.id === c.id) as Row;
    const iosOnly = (await report(p, 'cost_per_event=lvl&platform=ios&to=2025-02-10')).find(
      (x) => x.id === c.id,
    ) as Row;

    // Under platform=ios, spend without a platform does not count for a two-listing campaign (README).
    expect(iosOnly).toMatchObject({ spend: '$0.00', roas: '-', cost_per_custom_events: { lvl: '$0.00' } });
    expect(row).toMatchObject({ spend: '$20.00', roas: '0.50x', cost_per_custom_events: { lvl: '$10.00' } });
    for (const x of [row, iosOnly]) {
      expect(x).toMatchObject({
        ios: true,
        android: true,
        installs: '2',
        'sign-ups': '1',
        revenue: '$10.00',
        conversion: '50.00%',
        suspicious_installs: '1',
        custom_events: { lvl: { count: '2', amount: '$3.00' } },
        active_users: 2,
      });
    }
  });

  it('when sorting by a hidden metric, then iOS-only campaigns go last in both orders, and paging keeps nested rows', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const ios = await f.storeListing(deps, p, 'IOS');
    const play = await f.storeListing(deps, p, 'ANDROID');
    const i1 = await f.campaign(app, p, { name: 'I1', store_listing_ids: [ios.id] });
    const a1 = await f.campaign(app, p, { name: 'A1', store_listing_ids: [play.id] });
    const a2 = await f.campaign(app, p, { name: 'A2', store_listing_ids: [play.id] });
    await seed(p, i1.id, 'IOS');
    await seed(p, a1.id, 'ANDROID');
    await r.insertFacts(deps, 'payments', [
      r.payment(p, r.newInstall({ campaignId: a2.id, adSetId: 'z' }, D), 'w', D, '1'),
    ]);

    for (const field of ['revenue', 'signups', 'roas', 'suspicious_installs', 'conversion']) {
      const desc = (await report(p, `sort_field=${field}`)).map((x) => x.name);
      const asc = (await report(p, `sort_field=${field}&sort_order=ascending`)).map((x) => x.name);
      expect(desc.at(-1), field).toBe('I1');
      expect(asc.at(-1), field).toBe('I1');
    }
    const page2 = await report(p, 'sort_field=revenue&limit=1&page=2');
    expect(page2.map((x) => x.name)).toEqual(['A2']);
    expect(((page2[0] as Row).adSets as Obj[]).map((a) => [a.id, a.revenue])).toEqual([['z', '$1.00']]);
  });
});
