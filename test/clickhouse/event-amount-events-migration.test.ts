// ClickHouse migration 0028 adds campaign_event_daily.amount_events (events that carried an amount,
// 0 included) to the view and backfills it for the events aggregated before. The view is set back to
// 0008's query to make such events; running the file then counts them, running it again adds
// nothing, and events written afterwards are counted by the view alone.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ClickHouseClient } from '../../src/store/clickhouse/client.ts';
import { insertFactRows } from '../../src/store/clickhouse/facts.ts';
import { rerunChMigration } from '../support/ch-migrations.ts';
import { chJson, migratedTestClickHouse, type TestProject } from '../support/harness.ts';
import * as r from '../support/report-facts.ts';

const FILE = '0028_add_event_daily_amount_events.sql';
const D = '2025-05-04';

// The view as migration 0008 made it, without amount_events.
const VIEW_BEFORE_0028 = `ALTER TABLE events_event_daily_mv MODIFY QUERY
SELECT project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id, event_name,
  toUInt64(count()) AS count, sumIf(amount, has_amount = 1) AS amount, uniqState(user_id) AS users
FROM events
GROUP BY project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id, event_name`;

let ch: ClickHouseClient;
beforeAll(async () => {
  ch = await migratedTestClickHouse();
});

type Agg = { name: string; count: string; amount: string; amount_events: string; users: string };

async function perName(projectId: string): Promise<Agg[]> {
  return chJson<Agg>(
    ch,
    `SELECT event_name AS name, toString(sum(count)) AS count, toString(sum(amount)) AS amount,
       toString(sum(amount_events)) AS amount_events, toString(uniqMerge(users)) AS users
     FROM campaign_event_daily WHERE project_id = {p:String} GROUP BY event_name ORDER BY event_name`,
    { p: projectId },
  );
}

const write = (rows: Record<string, unknown>[]) => insertFactRows(ch, 'events', rows, `amount-events-${randomUUID()}`);

describe('campaign_event_daily.amount_events (clickhouse migration 0028)', () => {
  it('when events were aggregated before it, then it counts those that carried an amount, 0 included, once however often it runs', async () => {
    const p = { project: { id: `amount-events-${randomUUID()}`, timezone: 'UTC' } } as TestProject;
    const x = r.newInstall({ campaignId: 7, adSetId: 'as1' }, D);
    await ch.command({ query: VIEW_BEFORE_0028 });
    let before: Agg[];
    try {
      await write([
        r.event(p, x, 'u1', 'trial', D, '0'),
        r.event(p, x, 'u2', 'trial', D, '0'),
        r.event(p, x, 'u1', 'buy', D, '2.5'),
        r.event(p, x, 'u1', 'view', D),
      ]);
      before = await perName(p.project.id);
    } finally {
      await rerunChMigration(ch, FILE);
    }
    const once = await perName(p.project.id);
    await rerunChMigration(ch, FILE);
    const twice = await perName(p.project.id);
    await write([r.event(p, x, 'u3', 'trial', D, '0'), r.event(p, x, 'u3', 'view', D)]);
    const later = await perName(p.project.id);

    expect(before.map((a) => a.amount_events)).toEqual(['0', '0', '0']);
    expect(once).toEqual([
      { name: 'buy', count: '1', amount: '2.5', amount_events: '1', users: '1' },
      { name: 'trial', count: '2', amount: '0', amount_events: '2', users: '2' },
      { name: 'view', count: '1', amount: '0', amount_events: '0', users: '1' },
    ]);
    expect(twice).toEqual(once);
    expect(later).toEqual([
      { name: 'buy', count: '1', amount: '2.5', amount_events: '1', users: '1' },
      { name: 'trial', count: '3', amount: '0', amount_events: '3', users: '3' },
      { name: 'view', count: '2', amount: '0', amount_events: '0', users: '2' },
    ]);
  });
});
