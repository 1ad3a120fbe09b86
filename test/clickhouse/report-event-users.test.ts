// Distinct users of custom events and payments (report-levels.ts) are counted only for the names a
// report asks unique counts for (unique_user_events). Those names get the same counts as when every
// name is asked, equal to the raw facts' distinct users; the other names get 0, and none of them
// reads the users states.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ClickHouseClient } from '../../src/store/clickhouse/client.ts';
import {
  type LevelKey,
  type PageScope,
  selectEventLevels,
  selectPaymentLevels,
} from '../../src/store/clickhouse/report-levels.ts';
import { EVENT_NAMES, writeGeneratedFacts } from '../support/generated-facts.ts';
import { chJson, migratedTestClickHouse } from '../support/harness.ts';

const PAYMENT_TYPES = ['FIRST_PAYMENT', 'RECURRING', 'DEFAULT'];

let ch: ClickHouseClient;
let scope: PageScope;

beforeAll(async () => {
  ch = await migratedTestClickHouse();
  const projectId = randomUUID();
  await writeGeneratedFacts(ch, projectId, 3, 'event-users');
  const rows = await chJson<{ campaign_id: number }>(
    ch,
    `SELECT DISTINCT campaign_id FROM merge(currentDatabase(), '^(events|payments)$')
      WHERE project_id = {p:String} AND campaign_id != 0`,
    { p: projectId },
  );
  const ids = rows.map((r) => Number(r.campaign_id));
  scope = { projectId, from: '1970-01-01', to: '2149-06-06', platform: '', ids };
});

type Row = { key: LevelKey; users: number; name?: string; type?: string };

/** name → distinct users per campaign (campaign level rows only), e.g. {"level_up": {"11": 2}}. */
function campaignUsers(rows: Row[]): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const r of rows.filter((x) => x.key.level === 'campaign')) {
    const name = r.name ?? r.type ?? '';
    out[name] = { ...out[name], [r.key.campaignId]: r.users };
  }
  return out;
}

/** Distinct users per campaign of the raw rows named `name` (`where`: which rows the view counts). */
async function rawUsers(table: string, nameColumn: string, name: string, where = '1'): Promise<Record<string, number>> {
  const rows = await chJson<{ campaign_id: number; n: string }>(
    ch,
    `SELECT campaign_id, toUInt64(uniqExact(user_id)) AS n FROM ${table}
      WHERE project_id = {p:String} AND campaign_id IN {ids:Array(UInt32)} AND toString(${nameColumn}) = {name:String} AND ${where}
      GROUP BY campaign_id`,
    { p: scope.projectId, ids: scope.ids, name },
  );
  return Object.fromEntries(rows.map((r) => [r.campaign_id, Number(r.n)]));
}

describe('distinct users in report levels', () => {
  it('when one event name is asked unique, then it alone gets distinct users, as when all are asked and as the raw events have', async () => {
    expect(scope.ids.length).toBeGreaterThan(1);
    const none = await selectEventLevels(ch, scope, EVENT_NAMES, []);
    const one = await selectEventLevels(ch, scope, EVENT_NAMES, ['level_up', 'not_displayed']);
    const all = await selectEventLevels(ch, scope, EVENT_NAMES, EVENT_NAMES);

    expect(none.length).toBeGreaterThan(0);
    expect(none.every((r) => r.users === 0)).toBe(true);
    // Counts and amounts do not depend on which names are unique.
    const strip = (rows: typeof none) =>
      rows.map((r) => ({ ...r, users: 0 })).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    expect(strip(one)).toEqual(strip(none));
    expect(strip(all)).toEqual(strip(none));

    const oneUsers = campaignUsers(one);
    const allUsers = campaignUsers(all);
    expect(oneUsers.level_up).toEqual(allUsers.level_up);
    expect(oneUsers.level_up).toEqual(await rawUsers('events', 'event_name', 'level_up'));
    expect(Object.values(oneUsers.level_up ?? {}).some((n) => n > 0)).toBe(true);
    for (const name of EVENT_NAMES.filter((n) => n !== 'level_up')) {
      expect(
        Object.values(oneUsers[name] ?? {}).every((n) => n === 0),
        name,
      ).toBe(true);
      expect(
        Object.values(allUsers[name] ?? {}).some((n) => n > 0),
        name,
      ).toBe(true);
    }
    // Every level, not only the campaign's, carries the asked name's users.
    const levels = (rows: typeof one) =>
      rows
        .filter((r) => r.name === 'level_up')
        .map(
          (r) =>
            `${r.key.level}|${r.key.campaignId}|${r.key.adSetId}|${r.key.creativeId}|${r.key.keywordId}=${r.users}`,
        )
        .sort();
    expect(levels(one)).toEqual(levels(all));
  });

  it('when one payment type is asked unique, then it alone gets distinct users, as when all are asked', async () => {
    const none = await selectPaymentLevels(ch, scope, PAYMENT_TYPES, []);
    const one = await selectPaymentLevels(ch, scope, PAYMENT_TYPES, ['RECURRING']);
    const all = await selectPaymentLevels(ch, scope, PAYMENT_TYPES, PAYMENT_TYPES);

    expect(none.length).toBeGreaterThan(0);
    expect(none.every((r) => r.users === 0)).toBe(true);
    const oneUsers = campaignUsers(one);
    const allUsers = campaignUsers(all);
    expect(oneUsers.RECURRING).toEqual(allUsers.RECURRING);
    expect(oneUsers.RECURRING).toEqual(await rawUsers('payments', 'type', 'RECURRING', `status = 'PAYMENT_COMPLETED'`));
    expect(Object.values(oneUsers.RECURRING ?? {}).some((n) => n > 0)).toBe(true);
    for (const type of ['FIRST_PAYMENT', 'DEFAULT']) {
      expect(
        Object.values(oneUsers[type] ?? {}).every((n) => n === 0),
        type,
      ).toBe(true);
    }
  });
});
