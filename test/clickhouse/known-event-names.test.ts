// The event names and payment types a report can show (selectKnownEventNames): the project's own,
// sorted, at most KNOWN_NAMES_LIMIT of each kind, whatever the other kind holds.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ClickHouseClient } from '../../src/store/clickhouse/client.ts';
import { KNOWN_NAMES_LIMIT, selectKnownEventNames } from '../../src/store/clickhouse/reporting.ts';
import { migratedTestClickHouse } from '../support/harness.ts';

async function record(ch: ClickHouseClient, projectId: string, kind: 'event' | 'payment', names: string[]) {
  await ch.insert({
    table: 'project_event_names',
    values: names.map((name) => ({ project_id: projectId, kind, name, rows: 1 })),
    format: 'JSONEachRow',
  });
}

describe('known event names', () => {
  it('when a project has more event names than the limit, then the first ones by name are listed, with all its payment types and none of another project', async () => {
    const ch = await migratedTestClickHouse();
    const [p, other] = [randomUUID(), randomUUID()];
    const events = Array.from({ length: KNOWN_NAMES_LIMIT + 20 }, (_, i) => `ev_${String(i).padStart(4, '0')}`);
    await record(ch, p, 'event', [...events].reverse());
    await record(ch, p, 'event', ['ev_0003']); // seen again: listed once
    await record(ch, p, 'payment', ['SUBSCRIPTION', 'DEFAULT', 'FIRST_PAYMENT']);
    await record(ch, other, 'event', ['aaa_other']);
    await record(ch, other, 'payment', ['AAA_OTHER']);

    const known = await selectKnownEventNames(ch, p);

    expect(known.events).toEqual(events.slice(0, KNOWN_NAMES_LIMIT));
    expect(known.payments).toEqual(['DEFAULT', 'FIRST_PAYMENT', 'SUBSCRIPTION']);
  });
});
