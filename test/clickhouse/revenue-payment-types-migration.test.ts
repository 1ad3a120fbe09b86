// ClickHouse migration 0031 leaves completed payments of type FUNDS_WITHDRAWAL,
// SUBSCRIPTION_CANCELLED, SUBSCRIPTION_REFUNDED and SUBSCRIPTION_BILLING_ISSUE out of revenue and
// takes back what they added before. The views are set back to 0007's and 0010's queries to write
// such payments (a withdrawal removed, a refunded and a cancelled type, money on day 0 and day 2
// of the cohort); running the file then leaves only money in, in every aggregate the report and
// v_campaign_daily read, running it again changes nothing, payment_events' per-type totals keep
// every type, and facts written afterwards (the removal of a withdrawal captured before) are left
// out by the views alone.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ClickHouseClient } from '../../src/store/clickhouse/client.ts';
import { insertFactRows } from '../../src/store/clickhouse/facts.ts';
import { beforeMigration0031, rerunChMigration } from '../support/ch-migrations.ts';
import { chJson, migratedTestClickHouse, type TestProject } from '../support/harness.ts';
import * as r from '../support/report-facts.ts';

const FILE = '0031_exclude_non_revenue_payment_types.sql';
const D = '2025-05-04';
const D2 = '2025-05-06';

let ch: ClickHouseClient;
beforeAll(async () => {
  ch = await migratedTestClickHouse();
});

type Money = { d: string; revenue: string; revenue_events: string };
type State = Record<string, unknown[]>;

const money = (table: string, day: string) =>
  `SELECT toString(${day}) AS d, toString(sum(revenue)) AS revenue, toString(sum(revenue_events)) AS revenue_events
   FROM ${table} WHERE project_id = {p:String} GROUP BY d ORDER BY d`;

/** Revenue as every reader of it sees it, plus the per-type payment totals. */
async function state(projectId: string): Promise<State> {
  const p = { p: projectId };
  return {
    campaign_daily: await chJson<Money>(ch, money('campaign_daily', 'day'), p),
    campaign_platform_daily: await chJson<Money>(ch, money('campaign_platform_daily', 'day'), p),
    campaign_platform_monthly: await chJson<Money>(ch, money('campaign_platform_monthly', 'month'), p),
    v_campaign_daily: await chJson<Money>(ch, money('v_campaign_daily', 'day'), p),
    revenue_cohort: await chJson(
      ch,
      `SELECT toString(install_day) AS d, toString(day_n) AS n, toString(sum(revenue)) AS revenue FROM revenue_cohort
       WHERE project_id = {p:String} GROUP BY d, n ORDER BY d, n`,
      p,
    ),
    campaign_payment_daily: await chJson(
      ch,
      `SELECT type, toString(sum(count)) AS count, toString(sum(total)) AS total FROM campaign_payment_daily
       WHERE project_id = {p:String} GROUP BY type ORDER BY type`,
      p,
    ),
  };
}

const write = (rows: Record<string, unknown>[]) => insertFactRows(ch, 'payments', rows, `rev-types-${randomUUID()}`);

describe('revenue without withdrawals and refunds (clickhouse migration 0031)', () => {
  it('when such payments were aggregated before it, then it takes them back out of revenue, once however often it runs, and keeps them in payment_events', async () => {
    const p = { project: { id: `rev-types-${randomUUID()}`, timezone: 'UTC' } } as TestProject;
    const x = r.newInstall({ campaignId: 7, adSetId: 'as1' }, D);
    const pay = (day: string, amount: string, opts: Parameters<typeof r.payment>[5] = {}) =>
      r.payment(p, x, 'u1', day, amount, opts);
    const withdrawal = pay(D, '4', { type: 'FUNDS_WITHDRAWAL' });
    const laterRemoved = pay(D2, '3', { type: 'FUNDS_WITHDRAWAL' });
    const before = await beforeMigration0031(ch, async () => {
      await write([
        pay(D, '10', { type: 'FIRST_PAYMENT' }),
        withdrawal,
        laterRemoved,
        pay(D, '2', { type: 'SUBSCRIPTION_REFUNDED' }),
        pay(D2, '0.5', { type: 'SUBSCRIPTION_CANCELLED' }),
        pay(D2, '6', { type: 'SUBSCRIPTION_RENEWED' }),
        pay(D2, '9', { type: 'SUBSCRIPTION_BILLING_ISSUE', status: 'PAYMENT_FAILED' }),
      ]);
      await write([{ ...withdrawal, event_id: `pay_${randomUUID()}`, sign: -1 }]);
      return state(p.project.id);
    });
    const once = await state(p.project.id);
    await rerunChMigration(ch, FILE);
    const twice = await state(p.project.id);
    await write([
      { ...laterRemoved, event_id: `pay_${randomUUID()}`, sign: -1 },
      pay(D2, '1', { type: 'FUNDS_WITHDRAWAL' }),
      pay(D2, '5', { type: 'ONE_TIME' }),
    ]);
    const later = await state(p.project.id);

    const days = (d0: [string, string], d2: [string, string]): Money[] => [
      { d: D, revenue: d0[0], revenue_events: d0[1] },
      { d: D2, revenue: d2[0], revenue_events: d2[1] },
    ];
    const month = (m: [string, string]): Money[] => [{ d: '2025-05-01', revenue: m[0], revenue_events: m[1] }];
    expect(before.campaign_daily).toEqual(days(['12', '2'], ['9.5', '3']));
    const fixed = days(['10', '1'], ['6', '1']);
    expect(once).toEqual({
      campaign_daily: fixed,
      campaign_platform_daily: fixed,
      campaign_platform_monthly: month(['16', '2']),
      v_campaign_daily: fixed,
      revenue_cohort: [
        { d: D, n: '0', revenue: '10' },
        { d: D, n: '2', revenue: '6' },
      ],
      campaign_payment_daily: [
        { type: 'FIRST_PAYMENT', count: '1', total: '10' },
        { type: 'FUNDS_WITHDRAWAL', count: '1', total: '3' },
        { type: 'SUBSCRIPTION_CANCELLED', count: '1', total: '0.5' },
        { type: 'SUBSCRIPTION_REFUNDED', count: '1', total: '2' },
        { type: 'SUBSCRIPTION_RENEWED', count: '1', total: '6' },
      ],
    });
    expect(twice).toEqual(once);
    const after = days(['10', '1'], ['11', '2']);
    expect(later).toEqual({
      campaign_daily: after,
      campaign_platform_daily: after,
      campaign_platform_monthly: month(['21', '3']),
      v_campaign_daily: after,
      revenue_cohort: [
        { d: D, n: '0', revenue: '10' },
        { d: D, n: '2', revenue: '11' },
      ],
      campaign_payment_daily: [
        { type: 'FIRST_PAYMENT', count: '1', total: '10' },
        { type: 'FUNDS_WITHDRAWAL', count: '1', total: '1' },
        { type: 'ONE_TIME', count: '1', total: '5' },
        { type: 'SUBSCRIPTION_CANCELLED', count: '1', total: '0.5' },
        { type: 'SUBSCRIPTION_REFUNDED', count: '1', total: '2' },
        { type: 'SUBSCRIPTION_RENEWED', count: '1', total: '6' },
      ],
    });
  });
});
