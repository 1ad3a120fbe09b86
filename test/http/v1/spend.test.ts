// PUT /api/v1/spend (and POST): batches of ad spend rows with the server key (issue 5: "Spend").
// Rows are validated one by one (a bad row is rejected with its index and reason, the rest are
// stored); a restatement replaces the earlier value in Postgres and, through the -1/+1 facts, in
// ClickHouse (raw `spend` and campaign_daily) without FINAL; an identical restatement writes nothing.
import { describe, expect, it } from 'vitest';
import { flushAllFacts } from '../../../src/domain/facts/flush-facts.ts';
import { FACT_TABLES } from '../../../src/domain/facts/tables.ts';
import * as f from '../../support/factories.ts';
import { newProject, type TestProject, useHarness } from '../../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

function put(p: TestProject | { headers: Record<string, string> }, payload: unknown, method: 'PUT' | 'POST' = 'PUT') {
  return h().app.inject({ method, url: '/api/v1/spend', headers: p.headers, payload: payload as object });
}

async function setup(campaign: Record<string, unknown> = {}) {
  const { app, deps } = h();
  const p = await newProject(deps);
  const c = await f.campaign(app, p, campaign);
  return { deps, p, c };
}

type StoredRow = {
  day: string;
  ad_set_id: string;
  ad_set_name: string;
  network: string;
  amount: string;
  impressions: string;
  clicks: string;
  source: string;
};
async function storedRows(p: TestProject): Promise<StoredRow[]> {
  return h().deps.sql<StoredRow[]>`
    SELECT day::text AS day, ad_set_id, ad_set_name, network, amount::text AS amount, impressions::text AS impressions,
      clicks::text AS clicks, source
    FROM spend_rows WHERE project_id = ${p.project.id} ORDER BY day, ad_set_id, network`;
}

async function outboxSpend(p: TestProject): Promise<Record<string, unknown>[]> {
  const rows = await h().deps.sql<{ row: Record<string, unknown> }[]>`
    SELECT row FROM fact_outbox WHERE fact_table = 'spend' AND project_id = ${p.project.id} ORDER BY seq`;
  return rows.map((r) => r.row);
}

async function chValue(query: string, p: TestProject): Promise<unknown[]> {
  const rs = await h().deps.ch.query({ query, format: 'JSONEachRow', query_params: { p: p.project.id } });
  return rs.json();
}

const FIELDS =
  'day, campaign_display_id, ad_set_id, ad_set_name, creative_id, creative_name, keyword_id, keyword_name, network, amount, impressions, clicks';
const saved = (accepted: number, unchanged: number, rejected: { index: number; reason: string }[] = []) => ({
  msg: `Spend saved: ${accepted} accepted, ${unchanged} unchanged, ${rejected.length} rejected.`,
  status: 200,
  data: { accepted, unchanged, rejected },
});

describe('PUT /api/v1/spend', () => {
  describe('200', () => {
    it('when rows are new, then 200, Postgres holds them, and ClickHouse gets one +1 fact each', async () => {
      const { deps, p, c } = await setup({ ad_network: 'meta' });

      const res = await put(p, {
        rows: [
          {
            day: '2025-03-01',
            campaign_display_id: c.display_id,
            ad_set_id: 'as1',
            ad_set_name: 'Set 1',
            amount: 12.5,
            impressions: 1000,
            clicks: '25',
          },
          { day: '2025-03-02', campaign_display_id: c.display_id, amount: '3.000000001', network: 'sandbox ads' },
        ],
      });

      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(saved(2, 0));
      expect(await storedRows(p)).toEqual([
        {
          day: '2025-03-01',
          ad_set_id: 'as1',
          ad_set_name: 'Set 1',
          network: 'META',
          amount: '12.500000000',
          impressions: '1000',
          clicks: '25',
          source: 'api',
        },
        {
          day: '2025-03-02',
          ad_set_id: '',
          ad_set_name: '',
          network: 'SANDBOX_ADS',
          amount: '3.000000001',
          impressions: '0',
          clicks: '0',
          source: 'api',
        },
      ]);
      const facts = await outboxSpend(p);
      expect(facts).toHaveLength(2);
      expect(facts[0]).toEqual({
        event_id: expect.stringMatching(/^sp_/),
        project_id: p.project.id,
        day: '2025-03-01',
        campaign_id: c.id,
        display_id: c.display_id,
        ad_set_id: 'as1',
        ad_set_name: 'Set 1',
        creative_id: '',
        creative_name: '',
        keyword_id: '',
        keyword_name: '',
        network: 'META',
        platform: '',
        amount: '12.5',
        impressions: 1000,
        clicks: 25,
        sign: 1,
        recorded_at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}$/),
      });
      await flushAllFacts(deps, FACT_TABLES);
      expect(
        await chValue(
          `SELECT toString(sum(spend)) AS spend, toString(sum(impressions)) AS impressions, toString(sum(network_clicks)) AS clicks
           FROM campaign_daily WHERE project_id = {p:String} AND platform = ''`,
          p,
        ),
      ).toEqual([{ spend: '15.500000001', impressions: '1000', clicks: '25' }]);
    });

    it('when a key is restated (10, then 7), then Postgres, raw spend and campaign_daily all say 7', async () => {
      const { deps, p, c } = await setup();
      const row = (amount: number) => ({
        day: '2025-03-05',
        campaign_display_id: c.display_id,
        ad_set_id: 'as1',
        amount,
      });

      expect((await put(p, { rows: [row(10)] })).json()).toEqual(saved(1, 0));
      await flushAllFacts(deps, FACT_TABLES);
      const res = await put(p, { rows: [row(7)] });

      expect(res.json()).toEqual(saved(1, 0));
      expect((await storedRows(p)).map((r) => r.amount)).toEqual(['7.000000000']);
      expect((await outboxSpend(p)).map((r) => [r.amount, r.sign])).toEqual([
        ['10', -1],
        ['7', 1],
      ]);
      await flushAllFacts(deps, FACT_TABLES);
      expect(
        await chValue(
          `SELECT toString(sum(amount * sign)) AS v, toString(count()) AS n FROM spend WHERE project_id = {p:String}`,
          p,
        ),
      ).toEqual([{ v: '7', n: '3' }]);
      expect(
        await chValue(`SELECT toString(sum(spend)) AS v FROM campaign_daily WHERE project_id = {p:String}`, p),
      ).toEqual([{ v: '7' }]);
    });

    it('when 30 days at the maximum amount are saved, then the report shows their exact sum', async () => {
      // At the old cap (1e28) 18 such rows wrapped ClickHouse's Decimal(38, 9) sum into a negative spend.
      const { deps, p, c } = await setup();
      const rows = Array.from({ length: 30 }, (_, i) => ({
        day: `2025-06-${String(i + 1).padStart(2, '0')}`,
        campaign_display_id: c.display_id,
        amount: '100000000000000000000',
      }));

      expect((await put(p, { rows })).json()).toEqual(saved(30, 0));
      await flushAllFacts(deps, FACT_TABLES);
      const report = await h().app.inject({
        method: 'GET',
        url: '/api/v1/reporting/campaigns?from=2025-06-01&to=2025-06-30',
        headers: p.headers,
      });

      expect(report.json().data.campaigns.find((r: { id: number }) => r.id === c.id)?.spend).toBe(
        '$3,000,000,000,000,000,000,000.00',
      );
    });

    it('when the rows span more months than one insert may create partitions for, then all of them reach ClickHouse', async () => {
      const { deps, p, c } = await setup();
      // 150 months, 2010-01 to 2022-06: ClickHouse refuses an insert into more than 100 partitions
      // by default (spend and campaign_platform_daily are partitioned by month).
      const rows = Array.from({ length: 150 }, (_, i) => ({
        day: `${2010 + Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}-01`,
        campaign_display_id: c.display_id,
        amount: 1,
      }));

      expect((await put(p, { rows })).json()).toEqual(saved(150, 0));
      await flushAllFacts(deps, FACT_TABLES);

      expect(await outboxSpend(p)).toEqual([]);
      expect(
        await chValue(
          `SELECT toString(count()) AS n, toString(uniqExact(toYYYYMM(day))) AS months FROM spend WHERE project_id = {p:String}`,
          p,
        ),
      ).toEqual([{ n: '150', months: '150' }]);
      expect(
        await chValue(`SELECT toString(sum(spend)) AS v FROM campaign_platform_daily WHERE project_id = {p:String}`, p),
      ).toEqual([{ v: '150' }]);
    });

    it('when the same rows are sent again, then they are unchanged and no fact is written', async () => {
      const { p, c } = await setup();
      const rows = [
        { day: '2025-03-06', campaign_display_id: c.display_id, amount: '5.50', impressions: 10 },
        { day: '2025-03-07', campaign_display_id: c.display_id, amount: 1, creative_id: 'cr1', creative_name: 'Video' },
      ];
      await put(p, { rows });
      const before = await outboxSpend(p);

      const res = await put(p, { rows }, 'POST');

      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(saved(0, 2));
      expect(await outboxSpend(p)).toEqual(before);
    });

    it('when a restatement leaves a name out, then the stored name is kept', async () => {
      const { p, c } = await setup();
      await put(p, {
        rows: [
          { day: '2025-03-08', campaign_display_id: c.display_id, ad_set_id: 'a', ad_set_name: 'Named', amount: 1 },
        ],
      });

      const res = await put(p, {
        rows: [{ day: '2025-03-08', campaign_display_id: c.display_id, ad_set_id: 'a', amount: 1 }],
      });

      expect(res.json()).toEqual(saved(0, 1));
      expect((await storedRows(p)).map((r) => r.ad_set_name)).toEqual(['Named']);
    });

    it('when rows are bad, then each is rejected with its index and reason and the good ones are stored', async () => {
      const { app } = h();
      const { p, c } = await setup();
      const gone = await f.campaign(app, p);
      await app.inject({ method: 'DELETE', url: `/api/v1/campaigns/${gone.display_id}`, headers: p.headers });
      const ok = { day: '2025-03-09', campaign_display_id: c.display_id, amount: 1 };
      const cases: [unknown, string][] = [
        ['not a row', 'row must be an object'],
        [{ ...ok, day: '2025-02-30' }, 'day must be a date YYYY-MM-DD'],
        [{ ...ok, day: '09/03/2025' }, 'day must be a date YYYY-MM-DD'],
        [
          { ...ok, campaign_display_id: '' },
          'campaign_display_id must be a non-empty string of at most 256 characters',
        ],
        [{ ...ok, campaign_display_id: 'nope' }, "campaign 'nope' not found in this project"],
        [{ ...ok, campaign_display_id: gone.display_id }, `campaign '${gone.display_id}' not found in this project`],
        [{ ...ok, ad_set_id: 5 }, 'ad_set_id must be a string of at most 256 characters'],
        [{ ...ok, creative_id: 'x'.repeat(257) }, 'creative_id must be a string of at most 256 characters'],
        [{ ...ok, keyword_id: 'a\u0000b' }, 'keyword_id must be a string of at most 256 characters'],
        [{ ...ok, ad_set_name: 'n'.repeat(501) }, 'ad_set_name must be a string of at most 500 characters'],
        [{ ...ok, creative_name: [] }, 'creative_name must be a string of at most 500 characters'],
        [{ ...ok, keyword_name: {} }, 'keyword_name must be a string of at most 500 characters'],
        [
          { ...ok, network: 'meta-ads' },
          'network must be a code of letters, digits, spaces or underscores (at most 64)',
        ],
        [{ ...ok, amount: -1 }, 'amount must be a number or decimal string from 0 to 1e20 with at most 9 decimals'],
        [
          { ...ok, amount: '1.0000000001' },
          'amount must be a number or decimal string from 0 to 1e20 with at most 9 decimals',
        ],
        [{ ...ok, amount: 1e-10 }, 'amount must be a number or decimal string from 0 to 1e20 with at most 9 decimals'],
        [
          { ...ok, amount: undefined },
          'amount must be a number or decimal string from 0 to 1e20 with at most 9 decimals',
        ],
        [{ ...ok, amount: '1e3' }, 'amount must be a number or decimal string from 0 to 1e20 with at most 9 decimals'],
        // Above 1e20 by less than a double can tell (compared as decimals, not floats).
        ...['100000000000000000001', '100000000000000000000.000000001', '10000000000000000000000000001', 1e28].map(
          (amount): [Record<string, unknown>, string] => [
            { ...ok, amount },
            'amount must be a number or decimal string from 0 to 1e20 with at most 9 decimals',
          ],
        ),
        [{ ...ok, impressions: -1 }, 'impressions must be a whole number from 0 to 1e12'],
        [{ ...ok, impressions: 1.5 }, 'impressions must be a whole number from 0 to 1e12'],
        [{ ...ok, clicks: 'abc' }, 'clicks must be a whole number from 0 to 1e12'],
        // Past 1e12 a row: v_campaign_daily's Int64 sums of a campaign's day could wrap.
        [{ ...ok, impressions: 1e12 + 1 }, 'impressions must be a whole number from 0 to 1e12'],
        [{ ...ok, clicks: '1000000000001' }, 'clicks must be a whole number from 0 to 1e12'],
        [{ ...ok, impressions: Number.MAX_SAFE_INTEGER }, 'impressions must be a whole number from 0 to 1e12'],
        // An ignored currency would count EUR as the project's currency; a typo would drop a name.
        [{ ...ok, currency: 'EUR' }, `unknown field(s) 'currency': a row takes ${FIELDS}`],
        [{ ...ok, adset_name: 'x', cost: 3 }, `unknown field(s) 'adset_name', 'cost': a row takes ${FIELDS}`],
      ];
      const rows = [...cases.map(([r]) => r), { ...ok, amount: 2 }, ok];

      const res = await put(p, { rows });

      const rejected = cases.map(([, reason], index) => ({ index, reason }));
      rejected.push({
        index: cases.length,
        reason: `superseded by row ${cases.length + 1} (same day, campaign, ad set, creative, keyword and network)`,
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(saved(1, 0, rejected));
      expect((await storedRows(p)).map((r) => r.amount)).toEqual(['1.000000000']);
      expect(await outboxSpend(p)).toHaveLength(1);
    });
  });

  describe('400', () => {
    it.each([
      ['no rows field', {}],
      ['rows not an array', { rows: { day: '2025-01-01' } }],
      ['rows empty', { rows: [] }],
      ['more than 10,000 rows', { rows: Array.from({ length: 10_001 }, () => ({})) }],
    ])('when the body has %s, then 400 with the rows text', async (_case, body) => {
      const { p } = await setup();

      const res = await put(p, body);

      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ msg: 'rows must be an array of 1 to 10,000 spend rows.', status: 400 });
      expect(await storedRows(p)).toEqual([]);
    });

    it('when the body is a JSON array, then 400 Request body must be a JSON object.', async () => {
      const { p } = await setup();

      const res = await put(p, [{ rows: [] }]);

      expect(res.json()).toEqual({ msg: 'Request body must be a JSON object.', status: 400 });
    });
  });

  describe('401', () => {
    it('when no key is sent, then 401 Server key missing!', async () => {
      const res = await h().app.inject({ method: 'PUT', url: '/api/v1/spend', payload: { rows: [] } });

      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ msg: 'Server key missing!', status: 401 });
    });

    it('when the key is unknown, then 401 Server key invalid!', async () => {
      const res = await put({ headers: { 'service-key': 'sk_not_a_key' } }, { rows: [] }, 'POST');

      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ msg: 'Server key invalid!', status: 401 });
    });
  });

  describe('tenant isolation', () => {
    it("when another project's key names a campaign, then only its own project's campaigns count", async () => {
      const { app } = h();
      const { p: a, c } = await setup({ custom_display_id: `shared-${process.pid}` });
      const b = await newProject(h().deps);
      const cb = await f.campaign(app, b);
      // One display id in two projects: create-campaign refuses it now; a database from before may hold it.
      await h().deps.sql`UPDATE campaigns SET display_id = ${c.display_id} WHERE id = ${cb.id}`;
      const onlyA = await f.campaign(app, a);
      const row = { day: '2025-03-10', campaign_display_id: c.display_id, amount: 4 };

      const res = await put(b, { rows: [row, { ...row, campaign_display_id: onlyA.display_id }] });

      expect(res.json()).toEqual(
        saved(1, 0, [{ index: 1, reason: `campaign '${onlyA.display_id}' not found in this project` }]),
      );
      expect(await storedRows(a)).toEqual([]);
      const [own] = await h().deps.sql<{ campaign_id: number }[]>`
        SELECT campaign_id FROM spend_rows WHERE project_id = ${b.project.id}`;
      expect(own?.campaign_id).toBe(cb.id);
    });
  });
});
