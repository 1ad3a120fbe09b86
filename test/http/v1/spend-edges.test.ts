// PUT/POST /api/v1/spend at its edges: concurrency (the same batch sent at once lands once in
// Postgres and ClickHouse; racing amounts end where Postgres ends), the 8 MiB body limit, odd bodies
// never answering 5xx, and a restated ad set name reaching the report.
import { describe, expect, it } from 'vitest';
import { flushAllFacts } from '../../../src/domain/facts/flush-facts.ts';
import { FACT_TABLES } from '../../../src/domain/facts/tables.ts';
import * as f from '../../support/factories.ts';
import { newProject, type TestProject, useHarness } from '../../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

function put(p: TestProject, payload: unknown, method: 'PUT' | 'POST' = 'PUT') {
  return h().app.inject({ method, url: '/api/v1/spend', headers: p.headers, payload: payload as object });
}

async function setup(campaign: Record<string, unknown> = {}) {
  const { app, deps } = h();
  const p = await newProject(deps);
  const c = await f.campaign(app, p, campaign);
  return { deps, p, c };
}

async function ch<T>(query: string, p: TestProject): Promise<T[]> {
  const rs = await h().deps.ch.query({ query, format: 'JSONEachRow', query_params: { p: p.project.id } });
  return rs.json<T>();
}

async function pgSpend(p: TestProject): Promise<string[]> {
  const rows = await h().deps.sql<{ amount: string }[]>`
    SELECT amount::text AS amount FROM spend_rows WHERE project_id = ${p.project.id} ORDER BY day, ad_set_id`;
  return rows.map((r) => r.amount);
}

describe('PUT /api/v1/spend: edges', () => {
  it('when the same new row is sent 6 times at once, then Postgres holds one row and ClickHouse counts it once', async () => {
    const { deps, p, c } = await setup();
    const body = { rows: [{ day: '2025-05-01', campaign_display_id: c.display_id, amount: '12.34' }] };

    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => put(p, body, i % 2 ? 'POST' : 'PUT')));

    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 200, 200]);
    const data = answers.map((a) => a.json().data as { accepted: number; unchanged: number });
    expect(data.reduce((s, d) => s + d.accepted, 0)).toBe(1);
    expect(data.reduce((s, d) => s + d.unchanged, 0)).toBe(5);
    expect(await pgSpend(p)).toEqual(['12.340000000']);
    await flushAllFacts(deps, FACT_TABLES);
    expect(
      await ch(
        `SELECT toString(sum(amount * sign)) AS v, toString(count()) AS n FROM spend WHERE project_id = {p:String}`,
        p,
      ),
    ).toEqual([{ v: '12.34', n: '1' }]);
    expect(await ch(`SELECT toString(sum(spend)) AS v FROM campaign_daily WHERE project_id = {p:String}`, p)).toEqual([
      { v: '12.34' },
    ]);
  });

  it('when two different amounts for one key race, then ClickHouse ends at the value Postgres kept', async () => {
    const { deps, p, c } = await setup();
    const row = (amount: string) => ({ rows: [{ day: '2025-05-02', campaign_display_id: c.display_id, amount }] });
    await put(p, row('1'));
    await flushAllFacts(deps, FACT_TABLES);

    await Promise.all([put(p, row('10')), put(p, row('7')), put(p, row('3')), put(p, row('10'))]);

    const [kept] = await pgSpend(p);
    await flushAllFacts(deps, FACT_TABLES);
    const [v] = await ch<{ v: string }>(
      `SELECT toString(sum(spend)) AS v FROM campaign_daily WHERE project_id = {p:String}`,
      p,
    );
    expect(Number(v?.v)).toBe(Number(kept));
  });

  it('when the body is above 8 MiB, then 413 Request body too large. and nothing is stored', async () => {
    const { p, c } = await setup();
    const filler = 'n'.repeat(500);
    const rows = Array.from({ length: 6_000 }, (_, i) => ({
      day: '2025-05-03',
      campaign_display_id: c.display_id,
      ad_set_id: `as${i}`,
      ad_set_name: filler,
      creative_name: filler,
      keyword_name: filler,
      amount: 1,
    }));
    const payload = JSON.stringify({ rows });
    expect(payload.length).toBeGreaterThan(8 * 1024 * 1024);

    const res = await h().app.inject({
      method: 'PUT',
      url: '/api/v1/spend',
      headers: { ...p.headers, 'content-type': 'application/json' },
      payload,
    });

    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ msg: 'Request body too large.', status: 413 });
    expect(await pgSpend(p)).toEqual([]);
  });

  it.each([
    ['text/csv', 'day,campaign_display_id,amount\n2025-01-01,x,1'],
    ['application/json', '{"rows": [1, 2'],
    ['application/json', 'null'],
    ['application/json', '{"rows": [null, true, [], "x", 1e400]}'],
    ['application/json', '{"rows": [{"day": "2025-01-01", "campaign_display_id": {"$ne": 1}, "amount": 1}]}'],
    ['application/json', '{"rows": [{"__proto__": {"day": "2025-01-01"}, "campaign_display_id": "x", "amount": 1}]}'],
  ])('when the body is %s %s, then a 4xx or 200 envelope, never a 5xx', async (type, body) => {
    const { p } = await setup();

    const res = await h().app.inject({
      method: 'PUT',
      url: '/api/v1/spend',
      headers: { ...p.headers, 'content-type': type },
      payload: body,
    });

    expect(res.statusCode).toBeLessThan(500);
    expect(res.json()).toMatchObject({ status: res.statusCode });
    expect(await pgSpend(p)).toEqual([]);
  });

  it('when an ad set is renamed by a spend restatement, then the report shows the new name', async () => {
    const { deps, p, c } = await setup();
    const row = (name: string, amount: number) => ({
      rows: [{ day: '2025-05-05', campaign_display_id: c.display_id, ad_set_id: 'as1', ad_set_name: name, amount }],
    });
    expect((await put(p, row('Old name', 5))).json().data.accepted).toBe(1);
    await flushAllFacts(deps, FACT_TABLES);
    expect((await put(p, row('New name', 5))).json().data.accepted).toBe(1);
    await flushAllFacts(deps, FACT_TABLES);

    const res = await h().app.inject({
      method: 'GET',
      url: '/api/v1/reporting/campaigns?from=2025-05-05&to=2025-05-05',
      headers: p.headers,
    });

    const campaign = res.json().data.campaigns.find((x: { id: number }) => x.id === c.id);
    expect(campaign.spend).toBe('$5.00');
    expect(campaign.adSets.map((a: { id: string; name: string; spend: string }) => [a.id, a.name, a.spend])).toEqual([
      ['as1', 'New name', '$5.00'],
    ]);
  });
});
