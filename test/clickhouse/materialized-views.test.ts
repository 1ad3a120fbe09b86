// Materialized views (clickhouse/migrations/0007-0012, 0016, 0017, 0020, 0028, 0031). STYLE.md: a batch retried with the same
// dedup token lands once in the raw table and once in every view target; and every aggregate
// metric equals a brute-force query over the raw facts. Facts are written with insertFactRows (the
// writer's insert), full rows only. Merges are stopped so row counts of the targets are exact.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClickHouseClient } from '../../src/store/clickhouse/client.ts';
import { insertFactRows } from '../../src/store/clickhouse/facts.ts';
import { PAGE_AGGREGATES } from '../support/aggregates.ts';
import { AD_SET_NAMES, type FactSet, generateFacts } from '../support/generated-facts.ts';
import { migratedTestClickHouse } from '../support/harness.ts';

const TARGETS = [...PAGE_AGGREGATES, 'campaign_platform_daily', 'campaign_platform_monthly', 'project_event_names'];
const K = 'campaign_id, day, platform, ad_set_id, creative_id, keyword_id';
const C = 'campaign_id, platform, ad_set_id, creative_id, keyword_id, install_day';
const DAY_N = `toUInt16(dateDiff('day', install_day, day)) AS day_n`;
const IN_WINDOW = `dateDiff('day', install_day, day) BETWEEN 0 AND 30`;
const COMPLETED = `status = 'PAYMENT_COMPLETED'`;
// Revenue: completed payments that are money in (0031: withdrawals and refunds are payment_events only).
const REVENUE = `${COMPLETED} AND type NOT IN
  ('FUNDS_WITHDRAWAL', 'SUBSCRIPTION_CANCELLED', 'SUBSCRIPTION_REFUNDED', 'SUBSCRIPTION_BILLING_ISSUE')`;

let ch: ClickHouseClient;
const unique = (name: string) => `mv-${name}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;

beforeAll(async () => {
  ch = await migratedTestClickHouse();
  for (const t of TARGETS) {
    await ch.command({ query: `SYSTEM STOP MERGES ${t}` });
  }
});
afterAll(async () => {
  for (const t of TARGETS) {
    await ch.command({ query: `SYSTEM START MERGES ${t}` });
  }
});

async function rows(query: string, params: string | Record<string, unknown>): Promise<string[]> {
  const query_params = typeof params === 'string' ? { p: params } : params;
  const rs = await ch.query({ query, format: 'JSONEachRow', query_params });
  return (await rs.json<Record<string, unknown>>()).map((r) => JSON.stringify(r)).sort();
}

async function countOf(table: string, p: string): Promise<number> {
  const [r] = await rows(`SELECT toString(count()) AS n FROM ${table} WHERE project_id = {p:String}`, p);
  return Number(JSON.parse(r ?? '{"n":"0"}').n);
}

/** Inserts each table's rows as `batches` blocks, each `times` times; same token per block unless fresh. */
async function write(facts: FactSet, tokenPrefix: string, opts: { batches: number; times: number; fresh?: boolean }) {
  for (const [table, list] of Object.entries(facts)) {
    const size = Math.ceil(list.length / opts.batches);
    for (let b = 0; b * size < list.length; b++) {
      for (let t = 0; t < opts.times; t++) {
        const token = `${tokenPrefix}:${table}:${b}${opts.fresh ? `:${t}` : ''}`;
        await insertFactRows(ch, table, list.slice(b * size, (b + 1) * size), token);
      }
    }
  }
}

describe('fact rows', () => {
  it('when generated, then every row holds every column of its raw table', async () => {
    const facts = generateFacts('columns', 1);

    for (const [table, list] of Object.entries(facts)) {
      const cols = await rows(
        `SELECT name FROM system.columns WHERE database = currentDatabase() AND table = '${table}'`,
        '',
      );
      const names = cols.map((c) => JSON.parse(c).name as string).sort();
      expect(list.length, table).toBeGreaterThan(0);
      for (const row of list) {
        expect(Object.keys(row).sort(), table).toEqual(names);
      }
    }
  });
});

describe('dedup (STYLE.md)', () => {
  it('when each batch is inserted three times with the same token, then it lands once in every raw table and every view target', async () => {
    const once = unique('once');
    const thrice = unique('thrice');
    const control = unique('control');
    const seed = 7;

    await write(generateFacts(once, seed), once, { batches: 2, times: 1 });
    await write(generateFacts(thrice, seed), thrice, { batches: 2, times: 3 });
    await write(generateFacts(control, seed), control, { batches: 2, times: 3, fresh: true });

    const facts = generateFacts(thrice, seed);
    for (const [table, list] of Object.entries(facts)) {
      expect(await countOf(table, thrice), table).toBe(list.length);
      expect(await countOf(table, control), table).toBe(3 * list.length);
    }
    for (const t of TARGETS) {
      const expected = await countOf(t, once);
      expect(expected, t).toBeGreaterThan(0);
      expect(await countOf(t, thrice), t).toBe(expected);
      // The control (three different tokens) shows the count would have tripled.
      expect(await countOf(t, control), t).toBe(3 * expected);
    }
    const totals = `SELECT toString(sum(clicks)) AS c, toString(sum(installs)) AS i, toString(sum(revenue)) AS r,
      toString(sum(spend)) AS s FROM campaign_daily WHERE project_id = {p:String}`;
    expect(await rows(totals, thrice)).toEqual(await rows(totals, once));
  });
});

describe('metrics equal brute force over the raw facts', () => {
  const p = unique('brute');
  let facts: FactSet;
  beforeAll(async () => {
    facts = generateFacts(p, 42);
    await write(facts, p, { batches: 3, times: 1 });
  });

  const sumOf = (table: string, key: string, col: string) =>
    `SELECT ${key}, toString(sum(${col})) AS v FROM ${table} WHERE project_id = {p:String} GROUP BY ${key} HAVING sum(${col}) != 0`;
  const uniqOf = (table: string, key: string, col: string) =>
    `SELECT ${key}, toString(uniqMerge(${col})) AS v FROM ${table} WHERE project_id = {p:String} GROUP BY ${key} HAVING uniqMerge(${col}) > 0`;
  const raw = (key: string, value: string, from: string, where = '1') =>
    `SELECT ${key}, toString(${value}) AS v FROM ${from} WHERE project_id = {p:String} AND ${where} GROUP BY ${key} HAVING ${value} != 0`;
  const union = (key: string, parts: string[]) =>
    `SELECT ${key}, toString(sum(x)) AS v FROM (${parts.join(' UNION ALL ')}) GROUP BY ${key} HAVING sum(x) != 0`;
  const part = (key: string, x: string, from: string, where: string) =>
    `SELECT ${key}, ${x} AS x FROM ${from} WHERE project_id = {p:String} AND ${where}`;
  const installKinds = `kind IN ('install', 'reinstall')`;
  const CD = 'campaign_id, day';
  const view = (col: string) =>
    `SELECT ${CD}, toString(${col}) AS v FROM v_campaign_daily WHERE project_id = {p:String} AND ${col} != 0`;

  const checks: [string, string, string][] = [
    ['campaign_daily.clicks', sumOf('campaign_daily', K, 'clicks'), raw(K, 'count()', 'clicks')],
    [
      'campaign_daily.installs',
      sumOf('campaign_daily', K, 'installs'),
      raw(K, 'count()', 'attributions', `kind = 'install'`),
    ],
    [
      'campaign_daily.reinstalls',
      sumOf('campaign_daily', K, 'reinstalls'),
      raw(K, 'count()', 'attributions', `kind = 'reinstall'`),
    ],
    [
      'campaign_daily.reengagements',
      sumOf('campaign_daily', K, 'reengagements'),
      raw(K, 'count()', 'attributions', `kind = 'reengagement'`),
    ],
    [
      'campaign_daily.suspicious_installs',
      sumOf('campaign_daily', K, 'suspicious_installs'),
      raw(K, 'count()', 'attributions', `suspicious = 1 AND ${installKinds}`),
    ],
    [
      'campaign_daily.click_through_installs',
      sumOf('campaign_daily', K, 'click_through_installs'),
      raw(K, 'count()', 'attributions', `attribution_type = 'INORGANIC' AND touch_type = 'click' AND ${installKinds}`),
    ],
    [
      'campaign_daily.view_through_installs',
      sumOf('campaign_daily', K, 'view_through_installs'),
      raw(K, 'count()', 'attributions', `attribution_type = 'INORGANIC' AND touch_type = 'view' AND ${installKinds}`),
    ],
    ['campaign_daily.signups', sumOf('campaign_daily', K, 'signups'), raw(K, 'count()', 'signups')],
    ['campaign_daily.custom_events', sumOf('campaign_daily', K, 'custom_events'), raw(K, 'count()', 'events')],
    [
      'campaign_daily.revenue_events',
      sumOf('campaign_daily', K, 'revenue_events'),
      union(K, [part(K, 'toInt64(1)', 'events', 'has_amount = 1'), part(K, 'toInt64(sign)', 'payments', REVENUE)]),
    ],
    [
      'campaign_daily.revenue',
      sumOf('campaign_daily', K, 'revenue'),
      union(K, [part(K, 'amount', 'events', 'has_amount = 1'), part(K, 'amount * sign', 'payments', REVENUE)]),
    ],
    [
      'campaign_daily.spend',
      sumOf('campaign_daily', K, 'spend'),
      raw(K.replace('platform', `'' AS platform`), 'sum(amount * sign)', 'spend'),
    ],
    [
      'campaign_daily.impressions',
      sumOf('campaign_daily', K, 'impressions'),
      raw(K.replace('platform', `'' AS platform`), 'sum(impressions * sign)', 'spend'),
    ],
    [
      'campaign_daily.network_clicks',
      sumOf('campaign_daily', K, 'network_clicks'),
      raw(K.replace('platform', `'' AS platform`), 'sum(clicks * sign)', 'spend'),
    ],
    [
      'campaign_daily.active_installs',
      uniqOf('campaign_daily', K, 'active_installs'),
      raw(K, 'uniqExact(install_instance_id)', 'install_events'),
    ],
    [
      'campaign_event_daily.count',
      sumOf('campaign_event_daily', `${K}, event_name`, 'count'),
      raw(`${K}, event_name`, 'count()', 'events'),
    ],
    [
      'campaign_event_daily.amount',
      sumOf('campaign_event_daily', `${K}, event_name`, 'amount'),
      raw(`${K}, event_name`, 'sumIf(amount, has_amount = 1)', 'events'),
    ],
    [
      'campaign_event_daily.amount_events (0028)',
      sumOf('campaign_event_daily', `${K}, event_name`, 'amount_events'),
      raw(`${K}, event_name`, 'count()', 'events', 'has_amount = 1'),
    ],
    [
      'campaign_event_daily.users',
      uniqOf('campaign_event_daily', `${K}, event_name`, 'users'),
      raw(`${K}, event_name`, 'uniqExact(user_id)', 'events'),
    ],
    [
      'campaign_payment_daily.count',
      sumOf('campaign_payment_daily', `${K}, type`, 'count'),
      raw(`${K}, type`, 'sum(toInt64(sign))', 'payments', COMPLETED),
    ],
    [
      'campaign_payment_daily.total',
      sumOf('campaign_payment_daily', `${K}, type`, 'total'),
      raw(`${K}, type`, 'sum(amount * sign)', 'payments', COMPLETED),
    ],
    [
      'campaign_payment_daily.users',
      uniqOf('campaign_payment_daily', `${K}, type`, 'users'),
      raw(`${K}, type`, 'uniqExact(user_id)', 'payments', COMPLETED),
    ],
    [
      'retention_cohort.active',
      uniqOf('retention_cohort', `${C}, day_n`, 'active'),
      raw(`${C}, ${DAY_N}`, 'uniqExact(install_instance_id)', 'install_events', IN_WINDOW),
    ],
    [
      'revenue_cohort.revenue',
      sumOf('revenue_cohort', `${C}, day_n`, 'revenue'),
      union(`${C}, day_n`, [
        part(`${C}, ${DAY_N}`, 'amount', 'events', `has_amount = 1 AND ${IN_WINDOW}`),
        part(`${C}, ${DAY_N}`, 'amount * sign', 'payments', `${REVENUE} AND ${IN_WINDOW}`),
      ]),
    ],
    ...(['clicks', 'installs', 'signups', 'revenue_events', 'revenue', 'spend'] as const).map(
      (col): [string, string, string] => [
        `campaign_platform_daily.${col} (0016)`,
        sumOf('campaign_platform_daily', 'campaign_id, day, platform', col),
        sumOf('campaign_daily', 'campaign_id, day, platform', col),
      ],
    ),
    ...(['clicks', 'installs', 'signups', 'revenue_events', 'revenue', 'spend'] as const).map(
      (col): [string, string, string] => [
        `campaign_platform_monthly.${col} (0020)`,
        sumOf('campaign_platform_monthly', 'campaign_id, month, platform', col),
        sumOf('campaign_daily', 'campaign_id, toStartOfMonth(day) AS month, platform', col).replace(
          'GROUP BY campaign_id, toStartOfMonth(day) AS month, platform',
          'GROUP BY campaign_id, month, platform',
        ),
      ],
    ),
    [
      'campaign_platform_daily.active_installs (0016)',
      uniqOf('campaign_platform_daily', 'campaign_id, day, platform', 'active_installs'),
      raw('campaign_id, day, platform', 'uniqExact(install_instance_id)', 'install_events'),
    ],
    [
      'project_event_names (0017)',
      `SELECT kind, name FROM project_event_names WHERE project_id = {p:String} GROUP BY kind, name`,
      `SELECT 'event' AS kind, event_name AS name FROM events WHERE project_id = {p:String} GROUP BY name
       UNION ALL SELECT 'payment', toString(type) FROM payments WHERE project_id = {p:String} AND ${COMPLETED} GROUP BY type`,
    ],
    ['v_campaign_daily.installs', view('installs'), raw(CD, 'count()', 'attributions', `kind = 'install'`)],
    ['v_campaign_daily.clicks', view('clicks'), raw(CD, 'count()', 'clicks')],
    [
      'v_campaign_daily.revenue',
      view('revenue'),
      union(CD, [part(CD, 'amount', 'events', 'has_amount = 1'), part(CD, 'amount * sign', 'payments', REVENUE)]),
    ],
    ['v_campaign_daily.spend', view('spend'), raw(CD, 'sum(amount * sign)', 'spend')],
    [
      'v_campaign_daily.active_installs',
      view('active_installs'),
      raw(CD, 'uniqExact(install_instance_id)', 'install_events'),
    ],
    [
      'v_attributed_installs',
      `SELECT decision_id, kind, campaign_display_id, toString(installed_at) AS at, install_day, method, is_suspicious,
         clicked_at IS NULL AS no_click, click_to_install_ms FROM v_attributed_installs WHERE project_id = {p:String}`,
      `SELECT decision_id, toString(kind) AS kind, display_id AS campaign_display_id, toString(install_ts) AS at,
         day AS install_day, toString(method) AS method, suspicious AS is_suspicious, click_id = '' AS no_click,
         if(ctit_ms < 0, NULL, ctit_ms) AS click_to_install_ms FROM attributions WHERE project_id = {p:String}`,
    ],
  ];

  it.each(checks)(
    '%s: when facts are written in batches, then each key equals the raw facts',
    async (_name, agg, brute) => {
      const expected = await rows(brute, p);

      const actual = await rows(agg, p);

      expect(expected.length).toBeGreaterThan(0);
      expect(actual).toEqual(expected);
    },
  );

  it('when names are read with anyLastIf, then each ad set keeps its name', async () => {
    const names = await rows(
      `SELECT ad_set_id, anyLastIf(ad_set_name, ad_set_name != '') AS n FROM campaign_daily
       WHERE project_id = {p:String} GROUP BY ad_set_id`,
      p,
    );

    expect(names.map((r) => JSON.parse(r))).toEqual(
      Object.entries(AD_SET_NAMES)
        .map(([id, n]) => ({ ad_set_id: id, n }))
        .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    );
  });

  it("when an event is named '__proto__', then it is aggregated under that name like any other", async () => {
    const n = facts.events.filter((e) => e.event_name === '__proto__').length;

    const got = await rows(
      `SELECT toString(sum(count)) AS n FROM campaign_event_daily WHERE project_id = {p:String} AND event_name = '__proto__'`,
      p,
    );

    expect(n).toBeGreaterThan(0);
    expect(got).toEqual([JSON.stringify({ n: String(n) })]);
  });

  it('when a payment is removed (sign -1), then it nets out of its key in campaign_payment_daily', async () => {
    const removal = facts.payments.find((x) => x.sign === -1) as Record<string, unknown>;
    const keyCols = ['campaign_id', 'day', 'platform', 'ad_set_id', 'creative_id', 'keyword_id', 'type'];
    const same = facts.payments.filter(
      (x) => x.status === 'PAYMENT_COMPLETED' && keyCols.every((k) => x[k] === removal[k]),
    );

    const [got] = await rows(
      `SELECT toString(sum(count)) AS c, toFloat64(sum(total)) AS t FROM campaign_payment_daily
       WHERE project_id = {p:String} AND campaign_id = {c:UInt32} AND day = {d:Date} AND platform = {pl:String}
         AND ad_set_id = {a:String} AND creative_id = {cr:String} AND keyword_id = {k:String} AND type = {ty:String}`,
      {
        p,
        c: removal.campaign_id,
        d: removal.day,
        pl: removal.platform,
        a: removal.ad_set_id,
        cr: removal.creative_id,
        k: removal.keyword_id,
        ty: removal.type,
      },
    );

    const count = same.reduce((n, x) => n + Number(x.sign), 0);
    const cents = same.reduce((n, x) => n + Math.round(Number(x.amount) * 100) * Number(x.sign), 0);
    expect(same.filter((x) => x.payment_id === removal.payment_id).map((x) => x.sign)).toEqual([1, -1]);
    expect(JSON.parse(got ?? '{}')).toEqual({ c: String(count), t: cents / 100 });
  });
});
