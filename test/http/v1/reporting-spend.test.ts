// GET /api/v1/reporting/campaigns with spend (from the spend hunt): ratios over zero ("-", never a
// made-up 0), ROAS after a refund, costs per install / sign-up / event / reinstall and ROAS rounded
// once from the exact ratio (README: money "exact for any Decimal(38, 9), costs per install ... too"),
// roas sorted exactly (ties newest first), whole-month windows (campaign_platform_monthly) after
// restatements, roll-up of spend over ad sets / creatives / keywords, zero-decimal currencies, and
// sandbox spend on the project-local day.
import { describe, expect, it } from 'vitest';
import { flushAllFacts } from '../../../src/domain/facts/flush-facts.ts';
import { FACT_TABLES } from '../../../src/domain/facts/tables.ts';
import { generateSandboxSpend } from '../../../src/domain/spend/generate-sandbox-spend.ts';
import { addDays } from '../../../src/lib/days.ts';
import * as f from '../../support/factories.ts';
import { newProject, type TestProject, useHarness } from '../../support/harness.ts';
import * as r from '../../support/report-facts.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

type Row = Record<string, unknown> & { id: number };

async function rowOf(p: TestProject, id: number, query = ''): Promise<Row> {
  const res = await h().app.inject({
    method: 'GET',
    url: `/api/v1/reporting/campaigns${query ? `?${query}` : ''}`,
    headers: p.headers,
  });
  expect(res.statusCode, res.body).toBe(200);
  const row = (res.json().data.campaigns as Row[]).find((c) => c.id === id);
  if (!row) {
    throw new Error(`campaign ${id} not in the report`);
  }
  return row;
}

async function putSpend(p: TestProject, rows: Record<string, unknown>[]) {
  const res = await h().app.inject({ method: 'PUT', url: '/api/v1/spend', headers: p.headers, payload: { rows } });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json().data.rejected).toEqual([]);
}

const D = '2025-02-14';

describe('GET /api/v1/reporting/campaigns with spend', () => {
  it('when a campaign has spend and no installs, sign-ups or events, then every cost per is "-" and roas 0.00x', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const c = await f.campaign(app, p);
    const other = await f.campaign(app, p);
    const x = r.newInstall({ campaignId: other.id }, D);
    await r.insertFacts(deps, 'attributions', [r.attribution(p, x)]);
    await r.insertFacts(deps, 'events', [r.event(p, x, 'u1', 'level_up', D)]);
    await r.insertFacts(deps, 'payments', [r.payment(p, x, 'u1', D, '5', { type: 'SUBSCRIPTION' })]);
    await putSpend(p, [{ day: D, campaign_display_id: c.display_id, amount: '50' }]);
    await flushAllFacts(deps, FACT_TABLES);

    const ua = await rowOf(p, c.id, 'cost_per_event=level_up,SUBSCRIPTION');
    const rt = await rowOf(p, c.id, 'view=retargeting');

    expect(ua).toMatchObject({
      spend: '$50.00',
      installs: '0',
      revenue: '$0.00',
      roas: '0.00x',
      cost_per_install: '-',
      cost_per_signup: '-',
      cost_per_custom_events: { level_up: '-' },
      cost_per_payment_events: { SUBSCRIPTION: '-' },
    });
    expect(rt).toMatchObject({ spend: '$50.00', cost_per_reinstall: '-' });
  });

  it('when installs and revenue have no spend (or a zero spend), then spend $0.00, cost per install $0.00 and roas "-"', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const none = await f.campaign(app, p);
    const zero = await f.campaign(app, p);
    for (const c of [none, zero]) {
      const x = r.newInstall({ campaignId: c.id }, D);
      await r.insertFacts(deps, 'attributions', [r.attribution(p, x)]);
      await r.insertFacts(deps, 'payments', [r.payment(p, x, 'u1', D, '9.99')]);
    }
    await putSpend(p, [{ day: D, campaign_display_id: zero.display_id, amount: 0 }]);
    await flushAllFacts(deps, FACT_TABLES);

    for (const c of [none, zero]) {
      expect(await rowOf(p, c.id)).toMatchObject({
        spend: '$0.00',
        revenue: '$9.99',
        roas: '-',
        cost_per_install: '$0.00',
      });
    }
  });

  it('when a payment is refunded (removed), then revenue and roas drop in every window', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const c = await f.campaign(app, p);
    const x = r.newInstall({ campaignId: c.id }, D);
    await r.insertFacts(deps, 'attributions', [r.attribution(p, x)]);
    await r.insertFacts(deps, 'payments', [
      r.payment(p, x, 'u1', D, '30', { row: 'pay-1' }),
      r.payment(p, x, 'u1', D, '20', { row: 'pay-2' }),
      r.payment(p, x, 'u1', D, '30', { row: 'pay-1', sign: -1 }),
    ]);
    await putSpend(p, [{ day: D, campaign_display_id: c.display_id, amount: '8' }]);
    await flushAllFacts(deps, FACT_TABLES);

    expect(await rowOf(p, c.id)).toMatchObject({ revenue: '$20.00', spend: '$8.00', roas: '2.50x' });
    expect(await rowOf(p, c.id, `from=${D}&to=${D}`)).toMatchObject({ revenue: '$20.00', roas: '2.50x' });
  });

  it('when spend / installs lies just below half a cent, then cost_per_install rounds down like the exact value', async () => {
    // 0.014999999 / 3 = 0.004999999666…: exactly that is $0.00. Rounded first to nano-units
    // (0.005000000) and then to cents, it becomes $0.01.
    const { app, deps } = h();
    const p = await newProject(deps);
    const c = await f.campaign(app, p);
    const a = { campaignId: c.id };
    await r.insertFacts(deps, 'attributions', [
      r.attribution(p, r.newInstall(a, D)),
      r.attribution(p, r.newInstall(a, D)),
      r.attribution(p, r.newInstall(a, D)),
    ]);
    await putSpend(p, [{ day: D, campaign_display_id: c.display_id, amount: '0.014999999' }]);
    await flushAllFacts(deps, FACT_TABLES);

    const row = await rowOf(p, c.id);

    expect(row.spend).toBe('$0.01');
    expect(row.cost_per_install).toBe('$0.00');
  });

  it('when spend over each count lies just below half a cent, then every cost per rounds down like the exact value', async () => {
    // Sign-ups, events, payments and reinstalls divide the same spend: each cost per is rounded once.
    const { app, deps } = h();
    const p = await newProject(deps);
    const c = await f.campaign(app, p);
    const a = { campaignId: c.id, adSetId: 'as1' };
    const xs = [r.newInstall(a, D), r.newInstall(a, D), r.newInstall(a, D)];
    const again = [r.newInstall(a, D), r.newInstall(a, D), r.newInstall(a, D)];
    await r.insertFacts(deps, 'attributions', [
      ...xs.map((x) => r.attribution(p, x)),
      ...again.map((x) => r.attribution(p, x, { kind: 'reinstall' })),
    ]);
    await r.insertFacts(
      deps,
      'signups',
      xs.map((x, i) => r.signup(p, x, `u${i}`)),
    );
    await r.insertFacts(
      deps,
      'events',
      xs.map((x, i) => r.event(p, x, `u${i}`, 'level_up', D)),
    );
    await r.insertFacts(
      deps,
      'payments',
      xs.map((x, i) => r.payment(p, x, `u${i}`, D, '1')),
    );
    await putSpend(p, [{ day: D, campaign_display_id: c.display_id, ad_set_id: 'as1', amount: '0.014999999' }]);
    await flushAllFacts(deps, FACT_TABLES);

    const ua = await rowOf(p, c.id, 'cost_per_event=level_up,DEFAULT');
    const rt = await rowOf(p, c.id, 'view=retargeting');

    const zero = {
      spend: '$0.01',
      cost_per_signup: '$0.00',
      cost_per_custom_events: { level_up: '$0.00' },
      cost_per_payment_events: { DEFAULT: '$0.00' },
    };
    expect(ua).toMatchObject({ ...zero, installs: '3', 'sign-ups': '3', cost_per_install: '$0.00' });
    expect((ua.adSets as Row[])[0]).toMatchObject({ id: 'as1', ...zero, cost_per_install: '$0.00' });
    expect(rt).toMatchObject({ reinstalls: '3', cost_per_reinstall: '$0.00' });
  });

  it('when a month-end day is restated, then whole-month, partial and spanning windows all show the latest value', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const c = await f.campaign(app, p);
    const b = await f.campaign(app, p);
    await putSpend(p, [
      { day: '2025-02-28', campaign_display_id: c.display_id, amount: '10' },
      { day: '2025-02-01', campaign_display_id: c.display_id, amount: '1' },
      { day: '2025-02-10', campaign_display_id: b.display_id, amount: '6' },
    ]);
    await flushAllFacts(deps, FACT_TABLES);
    await putSpend(p, [{ day: '2025-02-28', campaign_display_id: c.display_id, amount: '4' }]);
    await flushAllFacts(deps, FACT_TABLES);

    const windows: [string, string][] = [
      ['from=2025-02-01&to=2025-02-28', '$5.00'],
      ['from=2025-02-02&to=2025-02-28', '$4.00'],
      ['from=2025-01-15&to=2025-03-15', '$5.00'],
      ['from=2025-02-28&to=2025-02-28', '$4.00'],
      ['', '$5.00'],
    ];
    for (const [q, spend] of windows) {
      expect((await rowOf(p, c.id, q)).spend, q).toBe(spend);
    }
    // The sort reads the monthly / daily totals: c (5) after b (6) in a whole-month window.
    const res = await h().app.inject({
      method: 'GET',
      url: '/api/v1/reporting/campaigns?from=2025-02-01&to=2025-02-28&sort_field=spend&sort_order=descending',
      headers: p.headers,
    });
    expect(res.json().data.campaigns.map((x: Row) => [x.id, x.spend])).toEqual([
      [b.id, '$6.00'],
      [c.id, '$5.00'],
    ]);
  });

  it('when spend rows name ad sets, creatives and keywords, then each level sums its own rows and the row sums all', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const c = await f.campaign(app, p);
    const x = r.newInstall({ campaignId: c.id, adSetId: 'as1', creativeId: 'cr1' }, D);
    await r.insertFacts(deps, 'attributions', [r.attribution(p, x)]);
    const base = { day: D, campaign_display_id: c.display_id };
    await putSpend(p, [
      { ...base, ad_set_id: 'as1', ad_set_name: 'Set 1', creative_id: 'cr1', creative_name: 'Video', amount: '3' },
      { ...base, ad_set_id: 'as1', keyword_id: 'kw1', keyword_name: 'shoes', amount: '4' },
      { ...base, ad_set_id: 'as2', keyword_id: 'kw1', amount: '5' },
      { ...base, ad_set_id: 'as2', amount: '0.5' },
      { ...base, creative_id: 'cr9', amount: '2' },
      { ...base, amount: '1' },
    ]);
    await flushAllFacts(deps, FACT_TABLES);

    const row = await rowOf(p, c.id);

    type Level = { id: string; name: string; spend: string; cost_per_install?: string };
    const adSets = row.adSets as (Level & { adCreatives: Level[]; keywords: Level[] })[];
    expect(row.spend).toBe('$15.50');
    expect(row.cost_per_install).toBe('$15.50');
    expect(adSets.map((a) => [a.id, a.name, a.spend, a.cost_per_install])).toEqual([
      ['as1', 'Set 1', '$7.00', '$7.00'],
      ['as2', '', '$5.50', '-'],
    ]);
    expect(adSets[0]?.adCreatives.map((l) => [l.id, l.name, l.spend])).toEqual([['cr1', 'Video', '$3.00']]);
    expect(adSets[0]?.keywords.map((l) => [l.id, l.name, l.spend])).toEqual([['kw1', 'shoes', '$4.00']]);
    // as2's keyword row named no keyword: the name is per ad set × keyword key.
    expect(adSets[1]?.keywords.map((l) => [l.id, l.name, l.spend])).toEqual([['kw1', '', '$5.00']]);
    expect((row.keywords as Level[]).map((l) => [l.id, l.name, l.spend])).toEqual([['kw1', 'shoes', '$9.00']]);
  });

  it('when the project currency has no minor unit (JPY), then spend and costs round to whole yen', async () => {
    const { app, deps } = h();
    const p = await newProject(deps, { currency: 'JPY' });
    const c = await f.campaign(app, p);
    const a = { campaignId: c.id };
    await r.insertFacts(deps, 'attributions', [
      r.attribution(p, r.newInstall(a, D)),
      r.attribution(p, r.newInstall(a, D)),
    ]);
    await putSpend(p, [{ day: D, campaign_display_id: c.display_id, amount: '1234.5' }]);
    await flushAllFacts(deps, FACT_TABLES);

    expect(await rowOf(p, c.id)).toMatchObject({ spend: '¥1,235', cost_per_install: '¥617' });
  });

  it('when revenue / spend is exactly 5.025, then roas rounds half up to 5.03x like the exact ratio', async () => {
    // 1.005 / 0.2 as doubles is 5.0249999999999995, which formats as 5.02x.
    const { app, deps } = h();
    const p = await newProject(deps);
    const c = await f.campaign(app, p);
    const x = r.newInstall({ campaignId: c.id }, D);
    await r.insertFacts(deps, 'attributions', [r.attribution(p, x)]);
    await r.insertFacts(deps, 'payments', [r.payment(p, x, 'u1', D, '1.005')]);
    await putSpend(p, [{ day: D, campaign_display_id: c.display_id, amount: '0.2' }]);
    await flushAllFacts(deps, FACT_TABLES);

    expect((await rowOf(p, c.id)).roas).toBe('5.03x');
  });

  it('when sorting by roas, then equal ratios tie (newest first) and close ones keep the order of their shown values', async () => {
    // As floats, 0.3 / 0.1 (2.9999999999999996) sorted below 3 / 1, and 50249999.999999999 / 1e7
    // (5.02x) equalled 5.025 / 1 and sorted above 1.005 / 0.2 (5.03x).
    const { app, deps } = h();
    const p = await newProject(deps);
    const figures = [
      ['A', '1.005', '0.2'],
      ['B', '50249999.999999999', '10000000'],
      ['C', '5.025', '1'],
      ['D', '3', '1'],
      ['E', '0.3', '0.1'],
    ] as const;
    for (const [name, revenue, spend] of figures) {
      const c = await f.campaign(app, p, { name }); // created in order: E is the newest
      const x = r.newInstall({ campaignId: c.id }, D);
      await r.insertFacts(deps, 'attributions', [r.attribution(p, x)]);
      await r.insertFacts(deps, 'payments', [r.payment(p, x, 'u1', D, revenue)]);
      await r.insertFacts(deps, 'spend', [r.spend(p, { campaignId: c.id }, D, spend)]);
    }

    const sorted = async (order: string) => {
      const res = await h().app.inject({
        method: 'GET',
        url: `/api/v1/reporting/campaigns?sort_field=roas&sort_order=${order}`,
        headers: p.headers,
      });
      expect(res.statusCode, res.body).toBe(200);
      return (res.json().data.campaigns as Row[]).map((x) => `${x.name} ${x.roas}`);
    };

    expect(await sorted('descending')).toEqual(['C 5.03x', 'A 5.03x', 'B 5.02x', 'E 3.00x', 'D 3.00x']);
    expect(await sorted('ascending')).toEqual(['E 3.00x', 'D 3.00x', 'B 5.02x', 'C 5.03x', 'A 5.03x']);
  });

  it('when sandbox spend is generated in a zone far from UTC, then "today" is the project-local day', async () => {
    const { app, deps } = h();
    const now = Date.parse('2025-03-01T12:00:00Z');
    for (const [timezone, today] of [
      ['Pacific/Kiritimati', '2025-03-02'],
      ['Pacific/Pago_Pago', '2025-03-01'],
    ] as const) {
      const p = await newProject(deps, { timezone });
      const c = await f.campaign(app, p);

      const res = await generateSandboxSpend({ sql: deps.sql, now: () => now }, p.project.id, {
        displayId: c.display_id,
        days: '2',
        seed: undefined,
      });

      expect([res.from, res.to]).toEqual([addDays(today, -1), today]);
      const days = await deps.sql<{ day: string }[]>`
        SELECT DISTINCT day::text AS day FROM spend_rows WHERE project_id = ${p.project.id} ORDER BY day`;
      expect(days.map((d) => d.day)).toEqual([addDays(today, -1), today]);
    }
  });
});
