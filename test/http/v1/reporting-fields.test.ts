// GET /api/v1/reporting/campaigns: the row's fields beyond plain counts against api-spec.md
// §"Reporting campaign row" (AdSet, AdCreative, Keyword shapes), product-notes "Reporting fields
// beyond plain counts" and README "Reporting". Facts are written with the report-facts helpers on
// chosen days so every expected value is worked out here by hand.
import { describe, expect, it } from 'vitest';
import * as f from '../../support/factories.ts';
import { newProject, type TestProject, useHarness } from '../../support/harness.ts';
import * as r from '../../support/report-facts.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

type Obj = Record<string, unknown>;
type Row = Obj & { id: number };

async function report(p: TestProject, query = ''): Promise<Obj> {
  const res = await h().app.inject({
    method: 'GET',
    url: `/api/v1/reporting/campaigns${query ? `?${query}` : ''}`,
    headers: p.headers,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

async function rowOf(p: TestProject, id: number, query = ''): Promise<Row> {
  const rows = (await report(p, query)).campaigns as Row[];
  const row = rows.find((c) => c.id === id);
  if (!row) {
    throw new Error(`campaign ${id} not in the report`);
  }
  return row;
}

const D = '2025-01-15';

const isRetention = (v: unknown) =>
  typeof v === 'object' && v !== null && ['d1', 'd7'].every((k) => ['string', 'number'].includes(typeof (v as Obj)[k]));

describe('reporting: shapes', () => {
  it('when a campaign has an ad set, creative and keyword, then every level has the spec types', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const c = await f.campaign(app, p, { name: 'Shapes', deeplink: 'myapp://promo' });
    const a = { campaignId: c.id, adSetId: 'as1', adSetName: 'Set', creativeId: 'cr1', creativeName: 'Cr' };
    const k = { campaignId: c.id, adSetId: 'as1', adSetName: 'Set', keywordId: 'kw1', keywordName: 'shoes' };
    const x = r.newInstall(a, D);
    const y = r.newInstall(k, D);
    await r.insertFacts(deps, 'attributions', [r.attribution(p, x), r.attribution(p, y)]);
    await r.insertFacts(deps, 'install_events', [r.installEvent(p, x), r.installEvent(p, y)]);
    await r.insertFacts(deps, 'clicks', [r.click(p, a, D)]);
    await r.insertFacts(deps, 'spend', [r.spend(p, a, D, '4')]);

    const data = await report(p);
    const row = (data.campaigns as Row[]).find((x) => x.id === c.id) as Row;

    expect(data.display_currency).toBe('USD');
    expect(data.view).toBe('user_acquisition');
    // Campaign row: required fields and their types.
    for (const key of [
      'created_at',
      'display_id',
      'link',
      'name',
      'clicks',
      'installs',
      'sign-ups',
      'conversion',
      'revenue',
      'spend',
    ]) {
      expect(typeof row[key], key).toBe('string');
    }
    expect(typeof row.id).toBe('number');
    for (const key of [
      'active',
      'meta',
      'meta_web_to_app',
      'google',
      'google_web_to_app',
      'ios',
      'android',
      'has_date_filter',
    ]) {
      expect(typeof row[key], key).toBe('boolean');
    }
    expect(typeof row.activity_in_last_x_days).toBe('number');
    expect(row.custom_store_listing).toBeNull();
    expect(isRetention(row.retention)).toBe(true);
    // AdSet
    const adSets = row.adSets as Obj[];
    expect(adSets).toHaveLength(1);
    const as = adSets[0] as Obj;
    expect(as).toMatchObject({
      id: 'as1',
      name: 'Set',
      clicks: '1',
      installs: '2',
      spend: '$4.00',
      ios: false,
      android: false,
    });
    for (const key of ['sign-ups', 'revenue', 'conversion']) {
      expect(typeof as[key], key).toBe('string');
    }
    expect(isRetention(as.retention)).toBe(true);
    // AdCreative: deeplink is a number; id, name, type strings.
    const cr = (as.adCreatives as Obj[])[0] as Obj;
    expect(cr).toMatchObject({ id: 'cr1', name: 'Cr', type: '', deeplink: 1, installs: '1' });
    expect(isRetention(cr.retention)).toBe(true);
    // Keyword
    const kw = (as.keywords as Obj[])[0] as Obj;
    expect(kw).toMatchObject({ id: 'kw1', name: 'shoes', installs: '1', clicks: '0' });
    for (const key of ['sign-ups', 'spend', 'revenue', 'conversion']) {
      expect(typeof kw[key], key).toBe('string');
    }
  });

  it('when a campaign has no deeplink, then its creatives say deeplink 0 (a number)', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const c = await f.campaign(app, p, { name: 'No deeplink' });
    const a = { campaignId: c.id, adSetId: 'as1', creativeId: 'cr1' };
    await r.insertFacts(deps, 'clicks', [r.click(p, a, D)]);

    const row = await rowOf(p, c.id);

    const cr = (((row.adSets as Obj[])[0] as Obj).adCreatives as Obj[])[0];
    expect(cr).toMatchObject({ id: 'cr1', deeplink: 0 });
  });

  it('when the view is retargeting, then nested levels are built from the same counters', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const c = await f.campaign(app, p, { name: 'RT nested' });
    const a = { campaignId: c.id, adSetId: 'as1', adSetName: 'Set' };
    const xs = [r.newInstall(a, D), r.newInstall(a, D)];
    await r.insertFacts(deps, 'attributions', [
      r.attribution(p, xs[0] as r.InstallFact, { kind: 'reinstall' }),
      r.attribution(p, xs[1] as r.InstallFact, { kind: 'reengagement' }),
    ]);
    await r.insertFacts(deps, 'signups', [r.signup(p, xs[0] as r.InstallFact, 'u1')]);

    const data = await report(p, 'view=retargeting');
    const row = (data.campaigns as Row[]).find((x) => x.id === c.id) as Row;

    expect(data.view).toBe('retargeting');
    expect(row).toMatchObject({ reinstalls: '1', reengagements: '1', conversion: '50.00%', 'sign-ups': '1' });
    expect((row.adSets as Obj[])[0]).toMatchObject({ id: 'as1', 'sign-ups': '1', conversion: '50.00%' });
  });
});

describe('reporting: custom_events shape', () => {
  it('when an event carried an amount of 0, then custom_events shows {count, amount} (it carried amounts)', async () => {
    // README: "a bare count string, or {count, amount?, unique_count?} when the event carried amounts
    // in the window (amount = their sum)". capture-event takes a JSON number from 0 as revenue
    // (src/lib/money.ts revenueAmount), so a free trial start with amount 0 is a revenue event.
    const { app, deps } = h();
    const p = await newProject(deps);
    const c = await f.campaign(app, p, { name: 'Zero amount' });
    const x = r.newInstall({ campaignId: c.id }, D);
    await r.insertFacts(deps, 'events', [r.event(p, x, 'u1', 'trial_started', D, '0')]);

    const row = await rowOf(p, c.id);

    expect(row.revenue_event_count).toBe('1');
    expect(row.custom_events).toEqual({ trial_started: { count: '1', amount: '$0.00' } });
  });

  it('when events carried amounts, then amount is their exact sum and a bare count is kept for others', async () => {
    const { app, deps } = h();
    const p = await newProject(deps, { currency: 'INR' });
    const c = await f.campaign(app, p, { name: 'Amounts' });
    const x = r.newInstall({ campaignId: c.id }, D);
    await r.insertFacts(deps, 'events', [
      r.event(p, x, 'u1', 'buy', D, '1234.005'),
      r.event(p, x, 'u1', 'buy', D, '0.10'),
      r.event(p, x, 'u1', 'buy', D),
      r.event(p, x, 'u1', 'view', D),
    ]);

    const row = await rowOf(p, c.id, 'unique_user_events=view');

    expect(row.custom_events).toEqual({
      buy: { count: '3', amount: '₹1,234.11' },
      view: { count: '1', unique_count: '1' },
    });
    expect(row.revenue).toBe('₹1,234.11');
    expect(row.revenue_event_count).toBe('2');
  });

  it('when unique_user_events names an event, then unique_count counts users, not installs', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const c = await f.campaign(app, p, { name: 'Unique' });
    const a = { campaignId: c.id, adSetId: 'as1' };
    // One user on two installs (two devices); another user on a third install.
    const [x1, x2, x3] = [r.newInstall(a, D), r.newInstall(a, D), r.newInstall(a, D)] as const;
    await r.insertFacts(deps, 'events', [
      r.event(p, x1, 'same', 'open', D),
      r.event(p, x2, 'same', 'open', D),
      r.event(p, x3, 'other', 'open', D),
    ]);
    await r.insertFacts(deps, 'payments', [r.payment(p, x1, 'same', D, '1'), r.payment(p, x2, 'same', D, '2')]);

    const row = await rowOf(p, c.id, 'unique_user_events=open,DEFAULT');

    expect(row.custom_events).toEqual({ open: { count: '3', unique_count: '2' } });
    expect(row.payment_events).toEqual({ DEFAULT: { count: '2', total: '$3.00', unique_count: '1' } });
    const as = (row.adSets as Obj[])[0] as Obj;
    expect(as.custom_events).toEqual({ open: { count: '3', unique_count: '2' } });
  });

  it('when payment types differ, then payment_events has one entry per type with its net count and total', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const c = await f.campaign(app, p, { name: 'Payment types' });
    const x = r.newInstall({ campaignId: c.id }, D);
    await r.insertFacts(deps, 'payments', [
      r.payment(p, x, 'u1', D, '9.99', { type: 'FIRST_PAYMENT' }),
      r.payment(p, x, 'u1', D, '9.99', { type: 'SUBSCRIPTION_RENEWED', row: 'r1' }),
      r.payment(p, x, 'u1', D, '9.99', { type: 'SUBSCRIPTION_RENEWED', row: 'r2' }),
      r.payment(p, x, 'u1', D, '9.99', { type: 'SUBSCRIPTION_RENEWED', row: 'r2', sign: -1 }),
      r.payment(p, x, 'u1', D, '5', { type: 'ONE_TIME', status: 'PAYMENT_FAILED' }),
    ]);
    await r.insertFacts(deps, 'spend', [r.spend(p, { campaignId: c.id }, D, '10')]);

    const row = await rowOf(p, c.id, 'cost_per_event=FIRST_PAYMENT,SUBSCRIPTION_RENEWED');

    expect(row.payment_events).toEqual({
      FIRST_PAYMENT: { count: '1', total: '$9.99' },
      SUBSCRIPTION_RENEWED: { count: '1', total: '$9.99' },
    });
    expect(row.cost_per_payment_events).toEqual({ FIRST_PAYMENT: '$10.00', SUBSCRIPTION_RENEWED: '$10.00' });
    expect(row.revenue).toBe('$19.98');
    expect(row.revenue_event_count).toBe('2');
  });
});
