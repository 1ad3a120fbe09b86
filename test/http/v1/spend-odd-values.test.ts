// PUT /api/v1/spend with values at the edges of a row's text and counters. Text cells are made
// storable as client text is (lib/storable.ts: a lone surrogate becomes U+FFFD, as Postgres stores
// it), so Postgres, the key and the ClickHouse fact hold one value; the fact once kept the JSON
// escape "\ud800", which ClickHouse refused and dead-lettering failed on, holding back every
// project's spend. Impressions and clicks are capped at 1e12 a row, so v_campaign_daily's Int64 sums
// of a campaign's day never wrap (2^53 a row wrapped past 1,024 rows).
import { describe, expect, it } from 'vitest';
import { flushAllFacts } from '../../../src/domain/facts/flush-facts.ts';
import { FACT_TABLES } from '../../../src/domain/facts/tables.ts';
import * as f from '../../support/factories.ts';
import { newProject, type TestProject, useHarness } from '../../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

function put(p: TestProject, payload: unknown) {
  return h().app.inject({ method: 'PUT', url: '/api/v1/spend', headers: p.headers, payload: payload as object });
}

async function setup() {
  const { app, deps } = h();
  const p = await newProject(deps);
  const c = await f.campaign(app, p, {});
  return { deps, p, c };
}

async function ch<T>(query: string, p: TestProject): Promise<T[]> {
  const rs = await h().deps.ch.query({ query, format: 'JSONEachRow', query_params: { p: p.project.id } });
  return rs.json<T>();
}

const SPEND_SUM = 'SELECT toString(sum(spend)) AS v FROM campaign_daily WHERE project_id = {p:String}';

type Text = { ad_set_id: string; ad_set_name: string; creative_name: string; keyword_id: string };
async function pgText(p: TestProject): Promise<Text[]> {
  return h().deps.sql<Text[]>`
    SELECT ad_set_id, ad_set_name, creative_name, keyword_id FROM spend_rows WHERE project_id = ${p.project.id}`;
}

describe('PUT /api/v1/spend: odd values', () => {
  describe('200', () => {
    it.each([
      ['ad_set_id', '\ud800x', '\ufffdx'],
      ['ad_set_name', 'name \ud800', 'name \ufffd'],
      ['creative_name', '\ud83d', '\ufffd'],
      ['keyword_id', 'k\udbff', 'k\ufffd'],
    ])(
      'when %s holds a lone surrogate, then Postgres and ClickHouse hold it as U+FFFD and a repeat is unchanged',
      async (field, value, stored) => {
        const { deps, p, c } = await setup();
        const body = { rows: [{ day: '2025-05-07', campaign_display_id: c.display_id, amount: 2, [field]: value }] };

        const res = await put(p, body);
        await flushAllFacts(deps, FACT_TABLES);
        const again = await put(p, body);
        await flushAllFacts(deps, FACT_TABLES);

        expect(res.statusCode, res.body).toBe(200);
        expect(res.json().data).toEqual({ accepted: 1, unchanged: 0, rejected: [] });
        expect(again.json().data).toEqual({ accepted: 0, unchanged: 1, rejected: [] });
        expect((await pgText(p)).map((r) => r[field as keyof Text])).toEqual([stored]);
        const [left] = await deps.sql<{ n: number }[]>`
          SELECT count(*)::int AS n FROM fact_outbox WHERE project_id = ${p.project.id}`;
        expect(left?.n).toBe(0);
        const [dead] = await deps.sql<{ n: number }[]>`
          SELECT count(*)::int AS n FROM fact_dead_letters WHERE project_id = ${p.project.id}`;
        expect(dead?.n).toBe(0);
        expect(await ch(`SELECT ${field} AS v FROM spend WHERE project_id = {p:String}`, p)).toEqual([{ v: stored }]);
        expect(await ch(SPEND_SUM, p)).toEqual([{ v: '2' }]);
      },
    );

    it('when two rows of a batch differ only by lone surrogates in the ad set id, then they are one key and the later wins', async () => {
      const { deps, p, c } = await setup();
      const row = (adSetId: string, amount: number) => ({
        day: '2025-05-09',
        campaign_display_id: c.display_id,
        ad_set_id: adSetId,
        amount,
      });

      const res = await put(p, { rows: [row('\ud800x', 1), row('\udbffx', 5)] });
      await flushAllFacts(deps, FACT_TABLES);

      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data).toEqual({
        accepted: 1,
        unchanged: 0,
        rejected: [
          { index: 0, reason: 'superseded by row 1 (same day, campaign, ad set, creative, keyword and network)' },
        ],
      });
      expect((await pgText(p)).map((r) => r.ad_set_id)).toEqual(['\ufffdx']);
      expect(await ch(SPEND_SUM, p)).toEqual([{ v: '5' }]);
    });

    it("when one project's spend row holds a lone surrogate, then another project's later spend still reaches ClickHouse", async () => {
      const { deps, p: bad, c: badC } = await setup();
      const { p: good, c: goodC } = await setup();

      await put(bad, {
        rows: [{ day: '2025-05-08', campaign_display_id: badC.display_id, ad_set_id: '\ud800', amount: 1 }],
      });
      await flushAllFacts(deps, FACT_TABLES);
      await put(good, { rows: [{ day: '2025-05-08', campaign_display_id: goodC.display_id, amount: 3 }] });
      await flushAllFacts(deps, FACT_TABLES);

      expect(await ch(SPEND_SUM, bad)).toEqual([{ v: '1' }]);
      expect(await ch(SPEND_SUM, good)).toEqual([{ v: '3' }]);
    });

    it('when 1,100 rows of one day each report the largest allowed impressions and clicks, then v_campaign_daily sums them without wrapping', async () => {
      const { deps, p, c } = await setup();
      const max = 1e12;
      const rows = Array.from({ length: 1_100 }, (_, i) => ({
        day: '2025-05-04',
        campaign_display_id: c.display_id,
        ad_set_id: `as${i}`,
        amount: 1,
        impressions: i % 2 ? max : String(max),
        clicks: max,
      }));
      const over = { day: '2025-05-04', campaign_display_id: c.display_id, ad_set_id: 'over', amount: 1 };

      const res = await put(p, {
        rows: [...rows, { ...over, impressions: max + 1 }, { ...over, clicks: '1000000000001' }],
      });
      await flushAllFacts(deps, FACT_TABLES);

      expect(res.json().data).toEqual({
        accepted: 1_100,
        unchanged: 0,
        rejected: [
          { index: 1_100, reason: 'impressions must be a whole number from 0 to 1e12' },
          { index: 1_101, reason: 'clicks must be a whole number from 0 to 1e12' },
        ],
      });
      const expected = (BigInt(max) * 1100n).toString();
      expect(
        await ch(
          `SELECT toString(impressions) AS impressions, toString(network_clicks) AS network_clicks
           FROM v_campaign_daily WHERE project_id = {p:String} AND day = '2025-05-04'`,
          p,
        ),
      ).toEqual([{ impressions: expected, network_clicks: expected }]);
    });
  });
});

describe('PUT /api/v1/spend: the longest ids', () => {
  // Random code points from a wide range: Postgres compresses an index entry before its size check,
  // so a repeated character would fit where real text does not.
  const wideId = (): string =>
    Array.from({ length: 256 }, () => String.fromCodePoint(0x1f300 + Math.floor(Math.random() * 0x700))).join('');

  it('when ad set, creative and keyword ids each hold 256 four-byte characters, then the row is stored, a repeat is unchanged and another id is a new row', async () => {
    const { deps, p, c } = await setup();
    const row = { day: '2025-05-07', campaign_display_id: c.display_id, amount: 2 };
    const ids = { ad_set_id: wideId(), creative_id: wideId(), keyword_id: wideId() };

    const res = await put(p, { rows: [{ ...row, ...ids }] });
    const again = await put(p, { rows: [{ ...row, ...ids, amount: 3 }] });
    const other = await put(p, { rows: [{ ...row, ...ids, keyword_id: wideId() }] });
    await flushAllFacts(deps, FACT_TABLES);

    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ accepted: 1, unchanged: 0, rejected: [] });
    expect(again.json().data).toEqual({ accepted: 1, unchanged: 0, rejected: [] });
    expect(other.json().data).toEqual({ accepted: 1, unchanged: 0, rejected: [] });
    const stored = await deps.sql<{ n: number; amount: string }[]>`
      SELECT count(*)::int AS n, sum(amount)::text AS amount FROM spend_rows WHERE project_id = ${p.project.id}`;
    expect(stored[0]).toEqual({ n: 2, amount: '5.000000000' });
    expect(await ch<{ v: string }>(SPEND_SUM, p)).toEqual([{ v: '5' }]);
  });
});
