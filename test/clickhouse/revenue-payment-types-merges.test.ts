// ClickHouse migration 0031 on data written before it, then merges, GDPR
// deletions and fact-writer retries. The views are set back to their pre-0031 queries (0007/0010),
// facts are written, and the migration file is run as the runner runs it.
// Each test uses its own year: the correction inserts carry a fixed dedup token, and ClickHouse
// deduplicates a token per partition (campaign_daily and revenue_cohort are partitioned by year),
// so a second run in the same year within one process would be swallowed.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ClickHouseClient } from '../../src/store/clickhouse/client.ts';
import { insertFactRows } from '../../src/store/clickhouse/facts.ts';
import { selectCampaignBreakdown } from '../../src/store/clickhouse/reporting.ts';
import { deleteUserRowsIn } from '../../src/store/clickhouse/user-data.ts';
import { beforeMigration0031 } from '../support/ch-migrations.ts';
import { chJson, migratedTestClickHouse, type TestProject } from '../support/harness.ts';
import * as r from '../support/report-facts.ts';

let ch: ClickHouseClient;
beforeAll(async () => {
  ch = await migratedTestClickHouse();
});

const newP = () => ({ project: { id: `rt-${randomUUID()}`, timezone: 'UTC' } }) as TestProject;
const write = (table: string, rows: Record<string, unknown>[], token = `rt-${randomUUID()}`) =>
  insertFactRows(ch, table, rows, token);

/** Runs `before` under the pre-0031 views, then the migration file. */
const beforeMigration = (before: () => Promise<void>) => beforeMigration0031(ch, before);

async function revenueByTable(projectId: string) {
  const one = async (q: string) => (await chJson<{ v: string }>(ch, q, { p: projectId }))[0]?.v ?? '0';
  return {
    campaign_daily: await one('SELECT toString(sum(revenue)) AS v FROM campaign_daily WHERE project_id = {p:String}'),
    revenue_cohort: await one('SELECT toString(sum(revenue)) AS v FROM revenue_cohort WHERE project_id = {p:String}'),
  };
}

describe('migration 0031 and merges', () => {
  it('when a key with a withdrawal is merged after the migration, then its ad set, creative and keyword names are kept', async () => {
    const p = newP();
    const D = '2031-03-04';
    const a = {
      campaignId: 7,
      adSetId: 'as1',
      adSetName: 'Spring set',
      creativeId: 'cr1',
      creativeName: 'Banner',
      keywordId: 'kw1',
      keywordName: 'wallet app',
    };
    const x = r.newInstall(a, D);
    // Control: an ad set of the same campaign and day with only revenue (no correction row).
    const y = r.newInstall({ ...a, adSetId: 'as2', adSetName: 'Control set' }, D);
    await beforeMigration(async () => {
      await write('attributions', [r.attribution(p, x), r.attribution(p, y)]);
      await write('payments', [
        r.payment(p, x, 'u1', D, '10', { type: 'FIRST_PAYMENT' }),
        r.payment(p, x, 'u1', D, '4', { type: 'FUNDS_WITHDRAWAL' }),
        r.payment(p, y, 'u2', D, '3', { type: 'FIRST_PAYMENT' }),
      ]);
    });
    const scope = { projectId: p.project.id, from: D, to: D, platform: '' };
    const names = async () =>
      (await selectCampaignBreakdown(ch, scope, [7]))
        .map((row) => [row.adSetId, row.adSetName, row.creativeName, row.keywordName, row.revenue])
        .sort();
    expect(await names()).toEqual([
      ['as1', 'Spring set', 'Banner', 'wallet app', '10'],
      ['as2', 'Control set', 'Banner', 'wallet app', '3'],
    ]);
    // A background merge does this on its own schedule; FINAL only makes it happen now.
    await ch.command({ query: `OPTIMIZE TABLE campaign_daily PARTITION 2031 FINAL` });
    // The control keeps its names after the merge; the key the migration corrected must too.
    expect(await names()).toEqual([
      ['as1', 'Spring set', 'Banner', 'wallet app', '10'],
      ['as2', 'Control set', 'Banner', 'wallet app', '3'],
    ]);
    // README "For data engineers": the breakdown example reads the name with anyLastIf.
    const readme = await chJson(
      ch,
      `SELECT campaign_id, ad_set_id, anyLastIf(ad_set_name, ad_set_name != '') AS ad_set_name, toString(sum(revenue)) AS revenue
       FROM campaign_daily WHERE project_id = {p:String} AND day BETWEEN {d:Date} AND {d:Date}
       GROUP BY campaign_id, ad_set_id ORDER BY ad_set_id`,
      { p: p.project.id, d: D },
    );
    expect(readme).toEqual([
      { campaign_id: 7, ad_set_id: 'as1', ad_set_name: 'Spring set', revenue: '10' },
      { campaign_id: 7, ad_set_id: 'as2', ad_set_name: 'Control set', revenue: '3' },
    ]);
  });

  // A documented exception (README "For data engineers"): no aggregate keeps the payment type by
  // install day, and the deleted user's raw rows are gone, so revenue_cohort keeps their withdrawal.
  it('when a user was deleted before the migration, then revenue leaves out their withdrawal and daywise revenue keeps it', async () => {
    const p = newP();
    const D = '2032-05-04';
    const x = r.newInstall({ campaignId: 9 }, D);
    await beforeMigration(async () => {
      await write('payments', [
        r.payment(p, x, 'gone', D, '10', { type: 'FIRST_PAYMENT' }),
        r.payment(p, x, 'gone', D, '4', { type: 'FUNDS_WITHDRAWAL' }),
      ]);
      // GDPR deletion (domain/users/delete-user.ts) deletes the raw rows; the aggregates keep them.
      await deleteUserRowsIn(ch, 'payments', 'user', {
        projectId: p.project.id,
        userId: 'gone',
        installIds: [x.iid],
        clickIds: [],
      });
    });
    // campaign_daily is corrected from campaign_payment_daily (which keeps the deleted user's
    // withdrawal), revenue_cohort from the raw payments (which no longer hold it).
    expect(await revenueByTable(p.project.id)).toEqual({ campaign_daily: '10', revenue_cohort: '14' });
  });

  it('a fact-writer batch retried after the migration with its pre-migration token lands once', async () => {
    const p = newP();
    const D = '2033-02-03';
    const x = r.newInstall({ campaignId: 11, adSetId: 'a' }, D);
    const rows = [
      r.payment(p, x, 'u1', D, '10', { type: 'DEFAULT' }),
      r.payment(p, x, 'u1', D, '4', { type: 'FUNDS_WITHDRAWAL' }),
      r.payment(p, x, 'u1', D, '2', { type: 'SUBSCRIPTION_REFUNDED' }),
    ];
    const token = `payments:batch-${randomUUID()}:abc`;
    await beforeMigration(async () => {
      await write('payments', rows, token);
    });
    const once = await revenueByTable(p.project.id);
    await write('payments', rows, token);
    expect(await revenueByTable(p.project.id)).toEqual(once);
    expect(once).toEqual({ campaign_daily: '10', revenue_cohort: '10' });
    const perType = await chJson(
      ch,
      `SELECT type, toString(sum(count)) AS n, toString(sum(total)) AS t FROM campaign_payment_daily
       WHERE project_id = {p:String} GROUP BY type ORDER BY type`,
      { p: p.project.id },
    );
    expect(perType).toEqual([
      { type: 'DEFAULT', n: '1', t: '10' },
      { type: 'FUNDS_WITHDRAWAL', n: '1', t: '4' },
      { type: 'SUBSCRIPTION_REFUNDED', n: '1', t: '2' },
    ]);
  });

  it('revenue_events never reads a wrapped count over a key, monthly and daily rollups agree after a merge', async () => {
    const p = newP();
    const D = '2034-01-30';
    const D2 = '2034-02-02';
    const x = r.newInstall({ campaignId: 13, adSetId: 's' }, D, 'IOS');
    const w = r.payment(p, x, 'u1', D, '7', { type: 'FUNDS_WITHDRAWAL' });
    await beforeMigration(async () => {
      await write('payments', [w, r.payment(p, x, 'u1', D2, '3', { type: 'SUBSCRIPTION_BILLING_ISSUE' })]);
      await write('payments', [r.payment(p, x, 'u1', D2, '5', { type: 'ONE_TIME' })]);
    });
    await write('payments', [{ ...w, event_id: `pay_${randomUUID()}`, sign: -1 }]);
    for (const t of ['campaign_daily', 'campaign_platform_daily', 'campaign_platform_monthly']) {
      await ch.command({ query: `OPTIMIZE TABLE ${t} FINAL` });
    }
    const q = (table: string, day: string) =>
      chJson(
        ch,
        `SELECT toString(${day}) AS d, toString(sum(revenue)) AS revenue, toString(sum(revenue_events)) AS n
         FROM ${table} WHERE project_id = {p:String} GROUP BY d ORDER BY d`,
        { p: p.project.id },
      );
    const rows = await chJson<{ n: string }>(
      ch,
      `SELECT toString(revenue_events) AS n FROM campaign_daily WHERE project_id = {p:String}`,
      { p: p.project.id },
    );
    expect(rows.every((row) => BigInt(row.n) < 2n ** 63n)).toBe(true);
    expect(await q('campaign_daily', 'day')).toEqual([
      { d: D, revenue: '0', n: '0' },
      { d: D2, revenue: '5', n: '1' },
    ]);
    expect(await q('campaign_platform_monthly', 'month')).toEqual([
      { d: '2034-01-01', revenue: '0', n: '0' },
      { d: '2034-02-01', revenue: '5', n: '1' },
    ]);
    expect(await q('v_campaign_daily', 'day')).toEqual(await q('campaign_daily', 'day'));
  });
});
