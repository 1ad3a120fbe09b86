// GET /api/v1/reporting/campaigns at the edges of what it stores (README "Reporting"): a window
// lying wholly before 1970-01-01 or after 2149-06-06 (the ClickHouse Date range) holds no day, so
// the edge day's facts stay out of it in every reader (totals, breakdown, events, payments, cohorts,
// active users), while a side beyond the range is still clamped (`to=9999-12-31` = no end); and a
// project with more event names than the default list shows (KNOWN_NAMES_LIMIT) still gets every
// name it asks for by `events=`. Money past a float's precision is divided and sorted exactly.
import { describe, expect, it } from 'vitest';
import { KNOWN_NAMES_LIMIT } from '../../../src/store/clickhouse/reporting.ts';
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
  expect(res.statusCode).toBe(200);
  const row = (res.json().data.campaigns as Row[]).find((c) => c.id === id);
  if (!row) {
    throw new Error(`campaign ${id} not in the report`);
  }
  return row;
}

/** Every kind of fact a report reads, on `day`, for one install of the campaign. */
async function factsOn(p: TestProject, campaignId: number, day: string, spend: string, appOpen?: string) {
  const { deps } = h();
  const a = { campaignId, adSetId: `as-${day}`, adSetName: `Set ${day}` };
  const x = r.newInstall(a, day);
  await r.insertFacts(deps, 'clicks', [r.click(p, a, day)]);
  await r.insertFacts(deps, 'install_events', [
    r.installEvent(p, x),
    ...(appOpen ? [r.installEvent(p, x, appOpen)] : []),
  ]);
  await r.insertFacts(deps, 'attributions', [r.attribution(p, x)]);
  await r.insertFacts(deps, 'signups', [r.signup(p, x, `u-${day}`)]);
  await r.insertFacts(deps, 'events', [r.event(p, x, `u-${day}`, 'purchase', day, '3')]);
  await r.insertFacts(deps, 'payments', [r.payment(p, x, `u-${day}`, day, '7')]);
  await r.insertFacts(deps, 'spend', [r.spend(p, a, day, spend)]);
}

describe('GET /api/v1/reporting/campaigns at the Date range edges', () => {
  it('when the window lies wholly before 1970-01-01 or after 2149-06-06, then the row is that of an empty window', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const c = await f.campaign(app, p, { name: 'Edges' });
    await factsOn(p, c.id, '1970-01-01', '50', '1970-01-02');
    await factsOn(p, c.id, '2149-06-06', '70');
    const q = 'payment_events=DEFAULT&unique_user_events=purchase,DEFAULT&cost_per_event=purchase,DEFAULT';

    const all = await rowOf(p, c.id, q);
    const emptyPast = await rowOf(p, c.id, `from=2000-01-01&to=2000-01-31&${q}`);
    const emptyFuture = await rowOf(p, c.id, `from=2100-01-01&to=2100-01-31&${q}`);
    const before = await rowOf(p, c.id, `from=1969-12-01&to=1969-12-31&${q}`);
    const beforeOpen = await rowOf(p, c.id, `to=1969-12-31&${q}`);
    const after = await rowOf(p, c.id, `from=2150-01-01&to=2150-01-31&${q}`);
    const afterOpen = await rowOf(p, c.id, `from=2150-01-01&${q}`);

    expect(all).toMatchObject({ clicks: '2', installs: '2', 'sign-ups': '2', spend: '$120.00', revenue: '$20.00' });
    expect(emptyPast).toMatchObject({
      clicks: '0',
      installs: '0',
      spend: '$0.00',
      revenue: '$0.00',
      custom_events: { purchase: { count: '0', unique_count: '0' } },
      payment_events: { DEFAULT: { count: '0', total: '$0.00', unique_count: '0' } },
      retention: { d1: '-', d7: '-' },
      active_users: 0,
      adSets: [],
    });
    expect(before).toEqual(emptyPast);
    expect(beforeOpen).toEqual(emptyPast);
    expect(after).toEqual(emptyFuture);
    expect(afterOpen).toEqual(emptyFuture);
  });

  it('when a side lies beyond the Date range but the window reaches into it, then that side is clamped and the edge day counts', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const c = await f.campaign(app, p, { name: 'Clamped' });
    await factsOn(p, c.id, '1970-01-01', '50');
    await factsOn(p, c.id, '2149-06-06', '70');

    const first = await rowOf(p, c.id, 'from=1900-01-01&to=1970-01-01');
    const last = await rowOf(p, c.id, 'from=2149-06-06&to=9999-12-31');
    const whole = await rowOf(p, c.id, 'from=1000-01-01&to=9999-12-31');

    expect(first).toMatchObject({ installs: '1', spend: '$50.00', custom_events: { purchase: { count: '1' } } });
    expect(last).toMatchObject({ installs: '1', spend: '$70.00', custom_events: { purchase: { count: '1' } } });
    expect(whole).toMatchObject({ installs: '2', spend: '$120.00', custom_events: { purchase: { count: '2' } } });
  });
});

describe('GET /api/v1/reporting/campaigns with more event names than the default list', () => {
  const names = Array.from({ length: KNOWN_NAMES_LIMIT }, (_, i) => `e${String(i).padStart(4, '0')}`);

  async function manyNames() {
    const { app, deps } = h();
    const p = await newProject(deps);
    const c = await f.campaign(app, p, { name: 'Many events' });
    const x = r.newInstall({ campaignId: c.id }, '2025-01-15');
    await r.insertFacts(deps, 'events', [
      ...names.map((n) => r.event(p, x, 'u1', n, '2025-01-15')),
      r.event(p, x, 'u1', 'zz_purchase', '2025-01-15'),
      r.event(p, x, 'u2', 'zz_purchase', '2025-01-15'),
    ]);
    return { p, c };
  }

  it('when events= names one past the default list, then it is shown with its counts and costs', async () => {
    const { p, c } = await manyNames();

    const row = await rowOf(
      p,
      c.id,
      'events=zz_purchase,e0000,never_sent&unique_user_events=zz_purchase&cost_per_event=zz_purchase',
    );

    expect(row.custom_events).toEqual({ zz_purchase: { count: '2', unique_count: '2' }, e0000: '1' });
    expect(row.cost_per_custom_events).toEqual({ zz_purchase: '$0.00' });
  });

  it('when no events list is given, then the first names by name are shown, up to the documented limit', async () => {
    const { p, c } = await manyNames();

    const row = await rowOf(p, c.id);

    expect(Object.keys(row.custom_events as object)).toEqual(names);
  });
});

describe('money beyond a float', () => {
  it('when spend is 12345678901234567.89 over one install, then cost_per_install is exactly the spend', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const c = await f.campaign(app, p, { name: 'Big spend' });
    const a = { campaignId: c.id };
    await r.insertFacts(deps, 'attributions', [r.attribution(p, r.newInstall(a, '2025-01-15'))]);
    await r.insertFacts(deps, 'spend', [r.spend(p, a, '2025-01-15', '12345678901234567.89')]);

    const row = await rowOf(p, c.id);

    // Divided as floats, it came out as $12,345,678,901,234,568.00.
    expect(row.spend).toBe('$12,345,678,901,234,567.89');
    expect(row.cost_per_install).toBe(row.spend);
  });

  it('when two revenues differ by a cent above 1e16, then sort_field=revenue orders them', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const bigger = await f.campaign(app, p, { name: 'Bigger' });
    const smaller = await f.campaign(app, p, { name: 'Smaller' }); // newer: first on a tie
    for (const [c, amount] of [
      [bigger, '10000000000000000.02'],
      [smaller, '10000000000000000.01'],
    ] as const) {
      const x = r.newInstall({ campaignId: c.id }, '2025-01-15');
      await r.insertFacts(deps, 'attributions', [r.attribution(p, x)]);
      await r.insertFacts(deps, 'payments', [r.payment(p, x, `u-${c.id}`, '2025-01-15', amount)]);
    }

    const res = await h().app.inject({
      method: 'GET',
      url: '/api/v1/reporting/campaigns?sort_field=revenue&sort_order=descending',
      headers: p.headers,
    });

    // As floats the two were equal, and the newer campaign came first.
    expect((res.json().data.campaigns as Row[]).map((x) => [x.name, x.revenue])).toEqual([
      ['Bigger', '$10,000,000,000,000,000.02'],
      ['Smaller', '$10,000,000,000,000,000.01'],
    ]);
  });
});
