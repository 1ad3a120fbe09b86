// The aggregates and stable views against the raw facts, filled by the real
// service (links, init, attribution, trigger, capture-event, capture-payment, refunds, spend
// restatements) at instants around a project's midnight and its DST changes, with a second project
// sending the same user ids and event names. README "For data engineers": "Report days (`day`,
// `install_day`) are local to the project's time zone", v_campaign_daily's metrics, the recipes.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Campaign } from '../../src/domain/campaigns/campaign.ts';
import {
  attribute,
  campaignWithListings,
  clickLink,
  flushFacts,
  init,
  post,
  randomIp,
  useClientHarness,
} from '../support/client.ts';
import { signUp } from '../support/commerce.ts';
import { chJson, type Harness, newProject, type TestProject } from '../support/harness.ts';
import { at } from '../support/users.ts';

const h = useClientHarness();

/**
 * Instants around each project's midnights and its 2026 DST changes (within the click lookups' 120
 * days, so the Play referrer still finds its click), with the project-local day each falls on.
 */
const NEW_YORK = [
  { iso: '2026-11-01T03:59:50.000Z', day: '2026-10-31' }, // 23:59:50 EDT, the night before fall back
  { iso: '2026-11-01T04:30:00.000Z', day: '2026-11-01' }, // 00:30 EDT on the fall-back day
  { iso: '2026-11-01T05:30:00.000Z', day: '2026-11-01' }, // 01:30 EDT, the first of the repeated hour
  { iso: '2026-11-01T06:30:00.000Z', day: '2026-11-01' }, // 01:30 EST, the second
  { iso: '2026-11-02T04:59:50.000Z', day: '2026-11-01' }, // 23:59:50 EST, end of the 25-hour day
  { iso: '2026-11-02T05:00:10.000Z', day: '2026-11-02' }, // 00:00:10 EST
];
/** Santiago springs forward at midnight: 2026-09-06 00:00 does not exist (23:59:59 -04 → 01:00 -03). */
const SANTIAGO = [
  { iso: '2026-09-06T03:59:50.000Z', day: '2026-09-05' }, // 23:59:50 -04
  { iso: '2026-09-06T04:00:10.000Z', day: '2026-09-06' }, // 01:00:10 -03, the day's first instant
  { iso: '2026-09-07T02:59:50.000Z', day: '2026-09-06' }, // 23:59:50 -03, end of the 23-hour day
  { iso: '2026-09-07T03:00:10.000Z', day: '2026-09-07' }, // 00:00:10 -03
];

function readmeRecipes(): string[] {
  const readme = readFileSync(path.join(__dirname, '../../README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## For data engineers'), readme.indexOf('## Development'));
  return [...section.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1] as string);
}

function recipe(i: number, projectId: string, from: string, to: string): string {
  const sql = readmeRecipes()[i] as string;
  return sql
    .replaceAll('<project id>', projectId)
    .replaceAll('2025-03-01', from)
    .replaceAll('2025-03-31', to)
    .trim()
    .replace(/;$/, '');
}

type Installed = { iid: string; userId: string; day: string };

/** Payments that are revenue (README "Reporting", revenue): completed, and money in. */
const REVENUE = `status = 'PAYMENT_COMPLETED' AND type NOT IN
  ('FUNDS_WITHDRAWAL', 'SUBSCRIPTION_CANCELLED', 'SUBSCRIPTION_REFUNDED', 'SUBSCRIPTION_BILLING_ISSUE')`;

/**
 * At `ms`: a click a minute before, init with its Play referrer, the decision, a sign-up, two events and
 * four payments: 10 completed, 7 initiated, and a withdrawal and a refunded subscription sent as
 * completed (README "Reporting": not revenue; payment_events only).
 */
async function journey(hh: Harness, p: TestProject, campaign: Campaign, ms: number, userId: string): Promise<string> {
  const ip = randomIp();
  const { referrer } = await at(hh, ms, () =>
    clickLink(hh, campaign, { ip, query: 'adset_id=as1&adset_name=Set%201' }),
  );
  await flushFacts(hh);
  const iid = randomUUID();
  await at(hh, ms, async () => {
    const res = await init(hh, p.token, { install_instance_id: iid, device_data: { install_ref: referrer } }, ip);
    expect(res.statusCode).toBe(202);
  });
  const decision = await at(hh, ms + 500, () => attribute(hh, p, iid));
  expect(decision?.method).toBe('play_referrer');
  await at(hh, ms + 1000, () => signUp(hh, p, iid, userId));
  const base = { token: p.token, platform: 'ANDROID', install_instance_id: iid, user_id: userId };
  await at(hh, ms + 1500, async () => {
    expect(
      (await post(hh, 'capture-event', { ...base, event_name: 'purchase', event_data: { amount: 5.5 } })).statusCode,
    ).toBe(200);
    expect((await post(hh, 'capture-event', { ...base, event_name: 'level_up', event_data: {} })).statusCode).toBe(200);
    expect((await post(hh, 'capture-payment', { ...base, amount: 10, payment_id: `${userId}-paid` })).statusCode).toBe(
      201,
    );
    expect(
      (
        await post(hh, 'capture-payment', {
          ...base,
          amount: 7,
          payment_id: `${userId}-init`,
          status: 'PAYMENT_INITIATED',
        })
      ).statusCode,
    ).toBe(201);
    for (const [type, amount] of [
      ['FUNDS_WITHDRAWAL', 30],
      ['SUBSCRIPTION_REFUNDED', 4],
    ] as const) {
      const res = await post(hh, 'capture-payment', { ...base, amount, type, payment_id: `${userId}-${type}` });
      expect(res.statusCode).toBe(201);
    }
  });
  return iid;
}

let a: TestProject;
let b: TestProject;
let ca: Campaign;
let cb: Campaign;
const installed: Installed[] = [];

beforeAll(async () => {
  const hh = h();
  a = await newProject(hh.deps, { timezone: 'America/New_York' });
  b = await newProject(hh.deps, { timezone: 'America/Santiago' });
  ca = await campaignWithListings(hh.deps, a, { name: 'NY' });
  cb = await campaignWithListings(hh.deps, b, { name: 'SCL' });
  for (const [i, t] of NEW_YORK.entries()) {
    const userId = `user-${i}`;
    const iid = await journey(hh, a, ca, Date.parse(t.iso), userId);
    installed.push({ iid, userId, day: t.day });
  }
  // The other project: the same user ids and event names.
  for (const [i, t] of SANTIAGO.entries()) {
    const userId = `user-${i}`;
    const iid = await journey(hh, b, cb, Date.parse(t.iso), userId);
    installed.push({ iid, userId, day: t.day });
  }
  // A refund of the fourth install's payment (01:30 EST on the fall-back day), weeks later, and the
  // removal of the third install's withdrawal (not revenue: it must not subtract any).
  for (const payment_id of ['user-3-paid', 'user-2-FUNDS_WITHDRAWAL']) {
    const refund = await post(hh, 'remove-captured-payment', { token: a.token, platform: 'ANDROID', payment_id });
    expect(refund.statusCode).toBe(200);
  }
  // Spend, restated: 40 then 25 on the night before fall back; 12 on the fall-back day.
  for (const rows of [
    [{ day: '2026-10-31', campaign_display_id: ca.displayId, amount: 40, impressions: 5000, clicks: 70 }],
    [
      { day: '2026-10-31', campaign_display_id: ca.displayId, amount: 25 },
      { day: '2026-11-01', campaign_display_id: ca.displayId, amount: 12, impressions: 900, clicks: 30 },
      // The first and last days the aggregates store (README "Reporting": 1970-01-01…2149-06-06).
      { day: '1970-01-01', campaign_display_id: ca.displayId, amount: 1, impressions: 10, clicks: 1 },
      { day: '2149-06-06', campaign_display_id: ca.displayId, amount: 2, impressions: 20, clicks: 2 },
    ],
  ]) {
    const res = await hh.app.inject({ method: 'PUT', url: '/api/v1/spend', headers: a.headers, payload: { rows } });
    expect(res.statusCode).toBe(200);
    await flushFacts(hh);
  }
  await flushFacts(hh);
}, 120_000);

async function oracleRows(p: TestProject): Promise<Record<string, string>[]> {
  const K = 'campaign_id, day';
  return chJson<Record<string, string>>(
    h().deps.ch,
    `SELECT toString(campaign_id) AS campaign_id, toString(day) AS day,
       toString(sum(c)) AS clicks, toString(sum(i)) AS installs, toString(sum(s)) AS signups,
       toString(sum(ce)) AS custom_events, toString(sum(re)) AS revenue_events,
       toString(sum(rev)) AS revenue, toString(sum(sp)) AS spend, toString(sum(imp)) AS impressions,
       toString(sum(nc)) AS network_clicks, toString(sum(ai)) AS active_installs
     FROM (
       SELECT ${K}, toInt64(count()) AS c, toInt64(0) AS i, toInt64(0) AS s, toInt64(0) AS ce, toInt64(0) AS re,
         toDecimal128(0, 9) AS rev, toDecimal128(0, 9) AS sp, toInt64(0) AS imp, toInt64(0) AS nc, toInt64(0) AS ai
         FROM clicks WHERE project_id = {p:String} GROUP BY ${K}
       UNION ALL SELECT ${K}, 0, toInt64(countIf(kind = 'install')), 0, 0, 0, 0, 0, 0, 0, 0 FROM attributions WHERE project_id = {p:String} GROUP BY ${K}
       UNION ALL SELECT ${K}, 0, 0, toInt64(count()), 0, 0, 0, 0, 0, 0, 0 FROM signups WHERE project_id = {p:String} GROUP BY ${K}
       UNION ALL SELECT ${K}, 0, 0, 0, toInt64(count()), toInt64(countIf(has_amount = 1)), sumIf(amount, has_amount = 1), 0, 0, 0, 0
         FROM events WHERE project_id = {p:String} GROUP BY ${K}
       UNION ALL SELECT ${K}, 0, 0, 0, 0, toInt64(sum(sign)), sum(amount * sign), 0, 0, 0, 0
         FROM payments WHERE project_id = {p:String} AND ${REVENUE} GROUP BY ${K}
       UNION ALL SELECT ${K}, 0, 0, 0, 0, 0, 0, sum(amount * sign), sum(impressions * sign), sum(clicks * sign), 0 FROM spend WHERE project_id = {p:String} GROUP BY ${K}
       UNION ALL SELECT ${K}, 0, 0, 0, 0, 0, 0, 0, 0, 0, toInt64(uniqExact(install_instance_id))
         FROM install_events WHERE project_id = {p:String} AND kind != 'reinstall_after_uninstall' GROUP BY ${K}
     ) GROUP BY ${K} ORDER BY ${K}`,
    { p: p.project.id },
  );
}

async function viewRows(p: TestProject): Promise<Record<string, string>[]> {
  return chJson<Record<string, string>>(
    h().deps.ch,
    `SELECT toString(campaign_id) AS campaign_id, toString(day) AS day, toString(clicks) AS clicks,
       toString(installs) AS installs, toString(signups) AS signups, toString(custom_events) AS custom_events,
       toString(revenue_events) AS revenue_events, toString(revenue) AS revenue, toString(spend) AS spend,
       toString(impressions) AS impressions, toString(network_clicks) AS network_clicks, toString(active_installs) AS active_installs
     FROM v_campaign_daily WHERE project_id = {p:String} ORDER BY campaign_id, day`,
    { p: p.project.id },
  );
}

describe('aggregates and views against the raw facts, around midnight and DST', () => {
  it("when facts arrive around a project's midnight and DST changes, then every raw row's day is its project-local day", async () => {
    const { deps } = h();
    const wrong: unknown[] = [];
    // ClickHouse's own reading of each row's time in the project's zone (a constant per statement).
    for (const p of [a, b]) {
      const tz = p.project.timezone;
      for (const [table, time, day] of [
        ['clicks', 'ts', 'day'],
        ['install_events', 'ts', 'day'],
        ['attributions', 'install_ts', 'day'],
        ['signups', 'ts', 'day'],
        ['events', 'ts', 'day'],
        ['payments', 'ts', 'day'],
        ['install_events', 'install_ts', 'install_day'],
        ['signups', 'install_ts', 'install_day'],
        ['events', 'install_ts', 'install_day'],
        ['payments', 'install_ts', 'install_day'],
      ] as const) {
        wrong.push(
          ...(await chJson(
            deps.ch,
            `SELECT '${table}.${day}' AS t, toString(${time}) AS at, toString(${day}) AS stored FROM ${table}
             WHERE project_id = {p:String} AND (${day} != toDate(${time}, {tz:String}) OR project_tz != {tz:String})`,
            { p: p.project.id, tz },
          )),
        );
      }
    }
    expect(wrong).toEqual([]);
    const days = await chJson<{ install_instance_id: string; install_day: string }>(
      deps.ch,
      'SELECT install_instance_id, toString(install_day) AS install_day FROM v_attributed_installs WHERE project_id IN ({a:String}, {b:String})',
      { a: a.project.id, b: b.project.id },
    );
    expect(Object.fromEntries(days.map((d) => [d.install_instance_id, d.install_day]))).toEqual(
      Object.fromEntries(installed.map((i) => [i.iid, i.day])),
    );
  });

  it('when v_campaign_daily is read, then each day equals what the raw facts of that project hold', async () => {
    for (const p of [a, b]) {
      expect(await viewRows(p)).toEqual(await oracleRows(p));
    }
    const byDay = Object.fromEntries((await viewRows(a)).map((r) => [r.day, r]));
    expect(byDay['2026-10-31']).toMatchObject({
      installs: '1',
      signups: '1',
      revenue: '15.5',
      spend: '25',
      impressions: '0',
    });
    expect(byDay['1970-01-01']).toMatchObject({ spend: '1', impressions: '10', network_clicks: '1' });
    expect(byDay['2149-06-06']).toMatchObject({ spend: '2', impressions: '20', network_clicks: '2' });
    // The 25-hour fall-back day: four installs, one of whose payments was refunded.
    expect(byDay['2026-11-01']).toMatchObject({ installs: '4', revenue: '52', revenue_events: '7', spend: '12' });
    expect(byDay['2026-11-02']).toMatchObject({ installs: '1', revenue: '15.5' });
    const santiago = Object.fromEntries((await viewRows(b)).map((r) => [r.day, r.installs]));
    expect(santiago).toEqual({ '2026-09-05': '1', '2026-09-06': '2', '2026-09-07': '1' });
  });

  it("when README's recipes are run for one project over DST windows, then they give its numbers and none of the other project's", async () => {
    const { deps } = h();
    const fall = await chJson<Record<string, unknown>>(deps.ch, recipe(0, a.project.id, '2026-10-31', '2026-11-01'));
    expect(fall).toEqual([
      { campaign_id: ca.id, clicks: 6, installs: 5, signups: 5, revenue: 67.5, spend: 37, roas: 1.824324324 },
    ]);
    const day = await chJson<Record<string, unknown>>(deps.ch, recipe(0, a.project.id, '2026-11-01', '2026-11-01'));
    expect(day).toEqual([
      { campaign_id: ca.id, clicks: 5, installs: 4, signups: 4, revenue: 52, spend: 12, roas: 4.333333333 },
    ]);
    const installs = await chJson<{ campaign_display_id: string }>(
      deps.ch,
      recipe(1, a.project.id, '2026-10-31', '2026-11-01'),
    );
    expect(installs.map((r) => r.campaign_display_id)).toEqual(Array(5).fill(ca.displayId));
    const breakdown = await chJson<Record<string, unknown>>(
      deps.ch,
      recipe(2, a.project.id, '2026-01-01', '2026-12-31'),
    );
    expect(breakdown.sort((x, y) => String(x.ad_set_id).localeCompare(String(y.ad_set_id)))).toEqual([
      { campaign_id: ca.id, ad_set_id: '', ad_set_name: '', installs: 0, revenue: 0, spend: 37 },
      { campaign_id: ca.id, ad_set_id: 'as1', ad_set_name: 'Set 1', installs: 6, revenue: 83, spend: 0 },
    ]);
    // Santiago's spring-forward day (23 hours, no midnight) in its own window.
    const spring = await chJson<Record<string, unknown>>(deps.ch, recipe(0, b.project.id, '2026-09-06', '2026-09-06'));
    expect(spring).toMatchObject([{ campaign_id: cb.id, installs: 2, signups: 2, revenue: 31 }]);
    // Each project's facts are in its own rows only.
    for (const [p, c] of [
      [a, ca],
      [b, cb],
    ] as const) {
      const ids = await chJson<{ campaign_id: number }>(
        deps.ch,
        'SELECT DISTINCT campaign_id FROM v_campaign_daily WHERE project_id = {p:String}',
        { p: p.project.id },
      );
      expect(ids.map((r) => r.campaign_id)).toEqual([c.id]);
    }
  });

  it('when the roll-ups are read, then campaign_platform_daily and campaign_platform_monthly hold what campaign_daily holds', async () => {
    const { deps } = h();
    const q = (table: string, day: string) =>
      chJson<Record<string, string>>(
        deps.ch,
        `SELECT toString(${day}) AS d, toString(sum(clicks)) AS clicks, toString(sum(installs)) AS installs,
           toString(sum(revenue)) AS revenue, toString(sum(spend)) AS spend, toString(sum(revenue_events)) AS revenue_events
         FROM ${table} WHERE project_id = {p:String} GROUP BY d ORDER BY d`,
        { p: a.project.id },
      );
    expect(await q('campaign_platform_daily', 'toStartOfMonth(day)')).toEqual(
      await q('campaign_daily', 'toStartOfMonth(day)'),
    );
    expect(await q('campaign_platform_monthly', 'month')).toEqual(await q('campaign_daily', 'toStartOfMonth(day)'));
  });

  it('when the cohorts are read, then revenue_cohort equals the raw revenue by install day and day N', async () => {
    const { deps } = h();
    const raw = await chJson<Record<string, string>>(
      deps.ch,
      `SELECT toString(install_day) AS d, toString(day_n) AS n, toString(sum(r)) AS revenue FROM (
         SELECT install_day, toUInt16(dateDiff('day', install_day, day)) AS day_n, sumIf(amount, has_amount = 1) AS r
           FROM events WHERE project_id = {p:String} GROUP BY install_day, day_n
         UNION ALL SELECT install_day, toUInt16(dateDiff('day', install_day, day)) AS day_n, sum(amount * sign)
           FROM payments WHERE project_id = {p:String} AND ${REVENUE} GROUP BY install_day, day_n)
       GROUP BY d, n ORDER BY d, n`,
      { p: a.project.id },
    );
    const cohort = await chJson<Record<string, string>>(
      deps.ch,
      `SELECT toString(install_day) AS d, toString(day_n) AS n, toString(sum(revenue)) AS revenue FROM revenue_cohort
       WHERE project_id = {p:String} GROUP BY d, n ORDER BY d, n`,
      { p: a.project.id },
    );
    expect(cohort).toEqual(raw);
  });
});
