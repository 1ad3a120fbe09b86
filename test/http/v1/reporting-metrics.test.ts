// GET /api/v1/reporting/campaigns metrics with hand-picked facts (written with insertFactRows on
// chosen days, so every expected number is worked out here by hand): formatting, nested ad sets →
// creatives / keywords, custom and payment event maps (prototype-named events included), the iOS
// "-" rules, windows, search, filters, sorting and paging, the retargeting view, retention, daywise
// revenue, active users and activity. The oracle test checks the same against random data.
import { describe, expect, it } from 'vitest';
import * as f from '../../support/factories.ts';
import { newProject, type TestProject, useHarness } from '../../support/harness.ts';
import * as r from '../../support/report-facts.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

type Row = Record<string, unknown> & { id: number; display_id: string; name: string };

async function report(p: TestProject, query = ''): Promise<{ campaigns: Row[]; pagination: unknown }> {
  const res = await h().app.inject({
    method: 'GET',
    url: `/api/v1/reporting/campaigns${query ? `?${query}` : ''}`,
    headers: p.headers,
  });
  expect(res.statusCode).toBe(200);
  return res.json().data;
}

async function rowOf(p: TestProject, id: number, query = ''): Promise<Row> {
  const row = (await report(p, query)).campaigns.find((c) => c.id === id);
  if (!row) {
    throw new Error(`campaign ${id} not in the report`);
  }
  return row;
}

const D = '2025-01-15';

describe('GET /api/v1/reporting/campaigns metrics', () => {
  it('when facts exist, then counts have thousands separators, money the currency symbol, ratios their forms', async () => {
    const { app, deps } = h();
    const p = await newProject(deps, { currency: 'EUR' });
    const c = await f.campaign(app, p, { name: 'Formatted' });
    const a = { campaignId: c.id };
    const [x1, x2] = [r.newInstall(a, D), r.newInstall(a, D)] as const;
    await r.insertFacts(
      deps,
      'clicks',
      Array.from({ length: 1234 }, () => r.click(p, a, D)),
    );
    await r.insertFacts(deps, 'attributions', [
      r.attribution(p, x1, { suspicious: true }),
      r.attribution(p, x2, { touch: 'view' }),
    ]);
    await r.insertFacts(deps, 'signups', [r.signup(p, x1, 'u1')]);
    await r.insertFacts(deps, 'events', [
      r.event(p, x1, 'u1', 'purchase', D, '1000.25'),
      r.event(p, x1, 'u1', 'open', D),
    ]);
    await r.insertFacts(deps, 'payments', [
      r.payment(p, x1, 'u1', D, '234.25'),
      r.payment(p, x1, 'u1', D, '99', { status: 'PAYMENT_FAILED' }),
    ]);
    await r.insertFacts(deps, 'spend', [
      r.spend(p, a, D, '2000'),
      r.spend(p, a, D, '2000', -1),
      r.spend(p, a, D, '2468.1'),
    ]);

    const row = await rowOf(p, c.id);

    expect(row).toMatchObject({
      clicks: '1,234',
      installs: '2',
      'sign-ups': '1',
      conversion: '50.00%',
      revenue: '€1,234.50',
      revenue_event_count: '2',
      spend: '€2,468.10',
      roas: '0.50x',
      cost_per_install: '€1,234.05',
      cost_per_signup: '€2,468.10',
      suspicious_installs: '1',
      click_through_attribution: '1',
      view_through_attribution: '1',
      custom_events: { open: '1', purchase: { count: '1', amount: '€1,000.25' } },
      payment_events: { DEFAULT: { count: '1', total: '€234.25' } },
    });
  });

  it('when facts carry ad sets, creatives and keywords, then rows nest adSets → adCreatives / keywords', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const c = await f.campaign(app, p, { name: 'Nested', deeplink: 'myapp://x' });
    const as1 = { campaignId: c.id, adSetId: 'as1', adSetName: 'Set one' };
    const cr1 = { ...as1, creativeId: 'cr1', creativeName: 'Video' };
    const cr2 = { ...as1, creativeId: 'cr2', creativeName: 'Image', keywordId: 'kw1', keywordName: 'shoes' };
    const as2kw = { campaignId: c.id, adSetId: 'as2', adSetName: 'Set two', keywordId: 'kw1', keywordName: 'shoes' };
    const installs = [r.newInstall(cr1, D), r.newInstall(cr1, D), r.newInstall(cr2, D), r.newInstall(as2kw, D)];
    await r.insertFacts(
      deps,
      'attributions',
      installs.map((x) => r.attribution(p, x)),
    );
    await r.insertFacts(deps, 'clicks', [r.click(p, cr1, D), r.click(p, as2kw, D), r.click(p, as2kw, D)]);
    await r.insertFacts(deps, 'spend', [r.spend(p, as1, D, '30'), r.spend(p, as2kw, D, '10')]);

    const row = await rowOf(p, c.id);

    const pick = (l: Record<string, unknown>) => ({
      id: l.id,
      name: l.name,
      installs: l.installs,
      clicks: l.clicks,
      spend: l.spend,
    });
    type Level = Record<string, unknown>;
    const adSets = row.adSets as (Level & { adCreatives: Level[]; keywords: Level[] })[];
    const [first, second] = adSets as [(typeof adSets)[number], (typeof adSets)[number]];
    expect(adSets.map(pick)).toEqual([
      { id: 'as1', name: 'Set one', installs: '3', clicks: '1', spend: '$30.00' },
      { id: 'as2', name: 'Set two', installs: '1', clicks: '2', spend: '$10.00' },
    ]);
    expect(first.adCreatives.map(pick)).toEqual([
      { id: 'cr1', name: 'Video', installs: '2', clicks: '1', spend: '$0.00' },
      { id: 'cr2', name: 'Image', installs: '1', clicks: '0', spend: '$0.00' },
    ]);
    expect(first.adCreatives).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: '', deeplink: 1, cost_per_install: '$0.00' })]),
    );
    expect(first.keywords.map(pick)).toEqual([
      { id: 'kw1', name: 'shoes', installs: '1', clicks: '0', spend: '$0.00' },
    ]);
    expect(second.keywords.map(pick)).toEqual([
      { id: 'kw1', name: 'shoes', installs: '1', clicks: '2', spend: '$10.00' },
    ]);
    expect((row.keywords as Record<string, unknown>[]).map(pick)).toEqual([
      { id: 'kw1', name: 'shoes', installs: '2', clicks: '2', spend: '$10.00' },
    ]);
    expect(row).toMatchObject({ installs: '4', clicks: '3', spend: '$40.00', cost_per_install: '$10.00' });
  });

  it('when events have prototype names, then custom_events, unique counts and costs per event come out right', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const c = await f.campaign(app, p, { name: 'Events' });
    const other = await f.campaign(app, p, { name: 'Other' });
    const a = { campaignId: c.id };
    const [x1, x2] = [r.newInstall(a, D), r.newInstall(a, D)] as const;
    const xo = r.newInstall({ campaignId: other.id }, D);
    await r.insertFacts(deps, 'events', [
      r.event(p, x1, 'u1', '__proto__', D),
      r.event(p, x1, 'u1', '__proto__', D),
      r.event(p, x2, 'u2', '__proto__', D),
      r.event(p, x1, 'u1', 'constructor', D, '2.5'),
      r.event(p, x1, 'u1', 'toString', D),
      r.event(p, x2, 'u2', 'hasOwnProperty', D),
      r.event(p, xo, 'u3', 'only_other', D),
    ]);
    await r.insertFacts(deps, 'payments', [
      r.payment(p, x1, 'u1', D, '10', { row: 'p1' }),
      r.payment(p, x2, 'u2', D, '20', { row: 'p2' }),
      r.payment(p, x2, 'u2', D, '20', { row: 'p2', sign: -1 }),
      r.payment(p, x1, 'u1', D, '7', { type: 'FIRST_PAYMENT' }),
    ]);
    await r.insertFacts(deps, 'spend', [r.spend(p, a, D, '30')]);

    const all = await rowOf(p, c.id, 'unique_user_events=__proto__,DEFAULT&cost_per_event=__proto__,DEFAULT,nope');
    const some = await rowOf(
      p,
      c.id,
      'events=toString,unknown,__proto__,toString&payment_events=FIRST_PAYMENT,PAYMENT_X',
    );

    expect(Object.keys(all.custom_events as object)).toEqual([
      '__proto__',
      'constructor',
      'hasOwnProperty',
      'only_other',
      'toString',
    ]);
    expect(all.custom_events).toEqual(
      JSON.parse(
        '{"__proto__":{"count":"3","unique_count":"2"},"constructor":{"count":"1","amount":"$2.50"},"hasOwnProperty":"1","only_other":"0","toString":"1"}',
      ),
    );
    expect(all.payment_events).toEqual({
      DEFAULT: { count: '1', total: '$10.00', unique_count: '2' },
      FIRST_PAYMENT: { count: '1', total: '$7.00' },
    });
    expect(all.cost_per_custom_events).toEqual(JSON.parse('{"__proto__":"$10.00"}'));
    expect(all.cost_per_payment_events).toEqual({ DEFAULT: '$30.00' });
    expect(Object.keys(some.custom_events as object)).toEqual(['toString', '__proto__']);
    expect(some.custom_events).toEqual(JSON.parse('{"toString":"1","__proto__":"3"}'));
    expect(some.payment_events).toEqual({ FIRST_PAYMENT: { count: '1', total: '$7.00' } });
    expect(some).not.toHaveProperty('cost_per_custom_events');
  });

  it('when a campaign lists only an iOS store listing, then the iOS-limited metrics are "-"', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const ios = await f.storeListing(deps, p, 'IOS');
    const c = await f.campaign(app, p, { name: 'iOS only', store_listing_ids: [ios.id] });
    const a = { campaignId: c.id };
    const x = r.newInstall(a, D, 'IOS');
    await r.insertFacts(deps, 'attributions', [r.attribution(p, x)]);
    await r.insertFacts(deps, 'install_events', [r.installEvent(p, x)]);
    await r.insertFacts(deps, 'clicks', [r.click(p, a, D, 'IOS')]);
    await r.insertFacts(deps, 'events', [r.event(p, x, 'u1', 'level', D)]);
    await r.insertFacts(deps, 'payments', [r.payment(p, x, 'u1', D, '5')]);
    await r.insertFacts(deps, 'spend', [r.spend(p, a, D, '8')]);

    const row = await rowOf(p, c.id, 'cost_per_event=level,DEFAULT');

    expect(row).toMatchObject({
      ios: true,
      android: false,
      clicks: '1',
      installs: '1',
      spend: '$8.00',
      revenue_event_count: '1',
      revenue: '-',
      roas: '-',
      cost_per_install: '-',
      cost_per_signup: '-',
      'sign-ups': '-',
      conversion: '-',
      uninstalls: '-',
      suspicious_installs: '-',
      retention: { d1: '-', d7: '-' },
      classic_retention: { d1: '-', d7: '-', d14: '-', d30: '-' },
      daywise_revenue: { d0: '-', d3: '-', d7: '-', d30: '-' },
      active_users: '-',
      custom_events: { level: '-' },
      cost_per_custom_events: { level: '-' },
      payment_events: { DEFAULT: { count: '1', total: '$5.00' } },
      cost_per_payment_events: { DEFAULT: '$8.00' },
    });
  });

  it('when from/to are given, then they set the window and never drop a campaign', async () => {
    const { app, deps } = h();
    const p = await newProject(deps, { timezone: 'Asia/Kolkata' });
    const c = await f.campaign(app, p, { name: 'Windowed' });
    const later = await f.campaign(app, p, { name: 'Created after to' });
    const a = { campaignId: c.id };
    await r.insertFacts(deps, 'clicks', [
      r.click(p, a, '2025-01-09'),
      r.click(p, a, '2025-01-10'),
      r.click(p, a, '2025-01-10'),
      r.click(p, a, '2025-01-11'),
    ]);

    const inside = await report(p, 'from=2025-01-10&to=2025-01-10');
    const fromOnly = await report(p, 'start_date=2025-01-10');
    const toOnly = await report(p, 'end_date=2025-01-10');
    const none = await report(p);

    const clicks = (d: { campaigns: Row[] }) => d.campaigns.map((x) => [x.name, x.clicks, x.has_date_filter]);
    expect(clicks(inside)).toEqual([
      ['Created after to', '0', true],
      ['Windowed', '2', true],
    ]);
    expect(clicks(fromOnly)).toContainEqual(['Windowed', '3', true]);
    expect(clicks(toOnly)).toContainEqual(['Windowed', '3', true]);
    expect(clicks(none)).toContainEqual(['Windowed', '4', false]);
    expect(inside.campaigns.map((x) => x.id)).toContain(later.id);
  });

  it('when searching, then name, display id, domain, deeplink and link match, and % _ \\ are literal', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    await f.domain(deps, p, { primary: true });
    const own = await f.domain(deps, p, { name: f.uniqueHost('promo') });
    const pct = await f.campaign(app, p, { name: '50% off' });
    const under = await f.campaign(app, p, { name: 'summer_sale' });
    const plain = await f.campaign(app, p, { name: 'Summer sale', custom_display_id: 'SUMMERX1' });
    const slash = await f.campaign(app, p, { name: 'back\\slash', domain: own.name });
    const deep = await f.campaign(app, p, { name: 'Deep', deeplink: 'https://shop.example.com/promo/autumn' });
    const names = async (q: string) =>
      (await report(p, `search=${encodeURIComponent(q)}&sort_field=created_at&sort_order=ascending`)).campaigns.map(
        (x) => x.name,
      );

    expect(await names('%')).toEqual(['50% off']);
    expect(await names('_')).toEqual(['summer_sale']);
    expect(await names('\\')).toEqual(['back\\slash']);
    expect(await names('SUMMER')).toEqual(['summer_sale', 'Summer sale']);
    expect(await names('summerx1')).toEqual(['Summer sale']);
    expect(await names(own.name.slice(0, 14))).toEqual(['back\\slash']);
    expect(await names('promo/autumn')).toEqual(['Deep']);
    expect(await names(`https://attr.test/?c=${pct.display_id}&utm_source=x`)).toEqual(['50% off']);
    expect(await names(`attr.test/${under.display_id}`)).toEqual(['summer_sale']);
    expect(await names("'; DROP TABLE campaigns;--")).toEqual([]);
    expect([plain.id, slash.id, deep.id]).toHaveLength(3);
  });

  it('when filtering by active, network, account and platform, then campaigns and metrics follow the README rules', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const android = await f.storeListing(deps, p, 'ANDROID');
    const ios = await f.storeListing(deps, p, 'IOS');
    const account = await f.networkAccount(deps, p, 'META');
    const meta = await f.campaign(app, p, {
      name: 'Meta both',
      ad_network: 'META',
      store_listing_ids: [android.id, ios.id],
    });
    const tiktok = await f.campaign(app, p, {
      name: 'TikTok android',
      ad_network: 'tiktok',
      store_listing_ids: [android.id],
    });
    const paused = await f.campaign(app, p, { name: 'Paused' });
    await app.inject({
      method: 'PATCH',
      url: `/api/v1/campaigns/${paused.display_id}`,
      headers: p.headers,
      payload: { active: false },
    });
    await deps.sql`UPDATE campaigns SET network_account_id = ${account.id} WHERE id = ${meta.id}`;
    for (const c of [meta, tiktok]) {
      const a = { campaignId: c.id };
      await r.insertFacts(deps, 'clicks', [
        r.click(p, a, D, 'ANDROID'),
        r.click(p, a, D, 'IOS'),
        r.click(p, a, D, 'IOS'),
      ]);
      await r.insertFacts(deps, 'spend', [r.spend(p, a, D, '12')]);
    }
    const view = async (q: string) =>
      (await report(p, `${q}&sort_field=created_at&sort_order=ascending`)).campaigns.map((x) => [
        x.name,
        x.clicks,
        x.spend,
      ]);

    expect(await view('active=false')).toEqual([['Paused', '0', '$0.00']]);
    expect(await view('active=TRUE&network=meta')).toEqual([['Meta both', '3', '$12.00']]);
    expect(await view('network=TikTok')).toEqual([['TikTok android', '3', '$12.00']]);
    expect(await view(`meta_account_id=${account.id}`)).toEqual([['Meta both', '3', '$12.00']]);
    expect(await view('meta_account_id=999999')).toEqual([]);
    expect(await view('platform=android')).toEqual([
      ['Meta both', '1', '$0.00'],
      ['TikTok android', '1', '$12.00'],
      ['Paused', '0', '$0.00'],
    ]);
    expect(await view('platform=IOS')).toEqual([
      ['Meta both', '2', '$0.00'],
      ['TikTok android', '2', '$0.00'],
      ['Paused', '0', '$0.00'],
    ]);
  });

  it('when sorting and paging, then computed values order the rows, "-" goes last, ties newest first', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const made: { id: number; name: string }[] = [];
    for (const [name, clicks, installs, revenue, spend] of [
      ['A', 5, 1, '10', '5'],
      ['B', 1, 2, '30', '0'],
      ['C', 3, 0, '0', '10'],
      ['D', 3, 4, '5', '20'],
      ['E', 0, 0, '0', '0'],
    ] as const) {
      const c = await f.campaign(app, p, { name });
      made.push({ id: c.id, name });
      const a = { campaignId: c.id };
      const xs = Array.from({ length: installs }, () => r.newInstall(a, D));
      await r.insertFacts(
        deps,
        'clicks',
        Array.from({ length: clicks }, () => r.click(p, a, D)),
      );
      await r.insertFacts(
        deps,
        'attributions',
        xs.map((x) => r.attribution(p, x)),
      );
      await r.insertFacts(deps, 'payments', xs.length ? [r.payment(p, xs[0] as r.InstallFact, 'u', D, revenue)] : []);
      await r.insertFacts(deps, 'spend', [r.spend(p, a, D, spend)]);
    }
    const order = async (q: string) => (await report(p, q)).campaigns.map((x) => x.name).join('');

    expect(await order('')).toBe('DBAEC');
    expect(await order('sort_field=clicks')).toBe('ADCBE');
    expect(await order('sort_field=clicks&sort_order=ascending')).toBe('EBDCA');
    expect(await order('sort_field=roas')).toBe('ADCEB');
    expect(await order('sort_field=roas&sort_order=ascending')).toBe('CDAEB');
    expect(await order('sort_field=revenue')).toBe('BADEC');
    expect(await order('sort_field=spend&sort_order=ascending')).toBe('EBACD');
    expect(await order('sort_field=conversion')).toBe('DBAEC');
    expect(await order('sort_field=created_at&sort_order=ascending')).toBe('ABCDE');
    expect(await order('sort_field=uninstalls')).toBe('EDCBA');
    const page = await report(p, 'sort_field=created_at&sort_order=ascending&limit=2&page=3');
    expect(page.campaigns.map((x) => x.name)).toEqual(['E']);
    expect(page.pagination).toEqual({ total: 5, pages: 3, page: 3, limit: 2 });
    expect((await report(p, 'limit=2&page=4')).campaigns).toEqual([]);
  });

  it('when view=retargeting, then reinstalls, reengagements and cost_per_reinstall replace cost_per_install', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const c = await f.campaign(app, p, { name: 'Retarget' });
    const a = { campaignId: c.id };
    const xs = [r.newInstall(a, D), r.newInstall(a, D), r.newInstall(a, D), r.newInstall(a, D)];
    await r.insertFacts(deps, 'attributions', [
      r.attribution(p, xs[0] as r.InstallFact),
      r.attribution(p, xs[1] as r.InstallFact, { kind: 'reinstall' }),
      r.attribution(p, xs[2] as r.InstallFact, { kind: 'reinstall' }),
      r.attribution(p, xs[3] as r.InstallFact, { kind: 'reengagement' }),
    ]);
    await r.insertFacts(deps, 'signups', [r.signup(p, xs[0] as r.InstallFact, 'u1')]);
    await r.insertFacts(deps, 'spend', [r.spend(p, a, D, '9')]);

    const ua = await rowOf(p, c.id);
    const rt = await rowOf(p, c.id, 'view=RETARGETING');

    expect(ua).toMatchObject({ installs: '1', conversion: '100.00%', cost_per_install: '$9.00' });
    expect(ua).not.toHaveProperty('reinstalls');
    expect(ua).not.toHaveProperty('cost_per_reinstall');
    expect(rt).toMatchObject({
      installs: '1',
      reinstalls: '2',
      reengagements: '1',
      conversion: '33.33%',
      cost_per_reinstall: '$4.50',
    });
    expect(rt).not.toHaveProperty('cost_per_install');
  });

  it('when view=retargeting sorts by conversion, then re-engagements count in it', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    // X: 1 sign-up over 2 reinstalls (50 %); Y: 1 sign-up over 1 re-engagement (100 %).
    for (const [name, kinds] of [
      ['X', ['reinstall', 'reinstall']],
      ['Y', ['reengagement']],
    ] as const) {
      const c = await f.campaign(app, p, { name });
      const xs = kinds.map(() => r.newInstall({ campaignId: c.id }, D));
      await r.insertFacts(
        deps,
        'attributions',
        xs.map((x, i) => r.attribution(p, x, { kind: kinds[i] })),
      );
      await r.insertFacts(deps, 'signups', [r.signup(p, xs[0] as r.InstallFact, `u-${name}`)]);
    }
    const order = async (q: string) =>
      (await report(p, q)).campaigns.map((x) => `${x.name} ${String(x.conversion)}`).join(', ');

    expect(await order('view=retargeting&sort_field=conversion')).toBe('Y 100.00%, X 50.00%');
    expect(await order('view=retargeting&sort_field=conversion&sort_order=ascending')).toBe('X 50.00%, Y 100.00%');
  });

  it('when installs have app opens and payments, then retention, daywise revenue, active users and activity follow the README', async () => {
    const { app, deps } = h();
    const p = await newProject(deps, { timezone: 'America/New_York' });
    const c = await f.campaign(app, p, { name: 'Cohort' });
    const a = { campaignId: c.id };
    const [i1, i2, i3, i4] = [
      r.newInstall(a, '2025-03-01'),
      r.newInstall(a, '2025-03-01'),
      r.newInstall(a, '2025-03-01'),
      r.newInstall(a, '2025-03-18'),
    ] as const;
    await r.insertFacts(deps, 'install_events', [
      ...[i1, i2, i3, i4].map((x) => r.installEvent(p, x)),
      r.installEvent(p, i1, '2025-03-02'),
      r.installEvent(p, i1, '2025-03-08'),
      r.installEvent(p, i2, '2025-03-02'),
    ]);
    await r.insertFacts(
      deps,
      'attributions',
      [i1, i2, i3, i4].map((x) => r.attribution(p, x)),
    );
    await r.insertFacts(deps, 'payments', [
      r.payment(p, i1, 'u1', '2025-03-01', '10'),
      r.payment(p, i1, 'u1', '2025-03-03', '5'),
      r.payment(p, i1, 'u1', '2025-03-11', '100'),
      r.payment(p, i4, 'u4', '2025-03-18', '1'),
    ]);
    await r.insertFacts(deps, 'clicks', [r.click(p, a, '2025-03-19'), r.click(p, a, '2025-03-19')]);
    const realNow = h().deps.now;
    h().deps.now = () => Date.parse('2025-03-20T16:00:00Z'); // 12:00 in New York: today is 2025-03-20
    let row: Row;
    try {
      row = await rowOf(p, c.id, 'from=2025-03-01&to=2025-03-18&active_users=7');
    } finally {
      h().deps.now = realNow;
    }

    expect(row).toMatchObject({
      installs: '4',
      retention: { d1: '50.00%', d7: '33.33%' },
      classic_retention: { d1: '50.00%', d7: '33.33%', d14: '0.00%', d30: '-' },
      daywise_revenue: { d0: '$11.00', d3: '$15.00', d7: '$15.00', d30: '-' },
      active_users: 1,
      activity_in_last_x_days: 3,
    });
  });
});
