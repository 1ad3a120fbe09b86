// The event names and payment types a report can show (selectKnownEventNames): the project's own,
// sorted; with no list asked, at most KNOWN_NAMES_LIMIT of each kind, whatever the other kind holds;
// with a list, every recorded name of it, however many names the project has.
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

/** A project with more event names than the limit, three payment types, and a neighbour. */
async function manyNames(ch: ClickHouseClient) {
  const [p, other] = [randomUUID(), randomUUID()];
  const events = Array.from({ length: KNOWN_NAMES_LIMIT + 20 }, (_, i) => `ev_${String(i).padStart(4, '0')}`);
  await record(ch, p, 'event', [...events].reverse());
  await record(ch, p, 'event', ['ev_0003']); // seen again: listed once
  await record(ch, p, 'payment', ['SUBSCRIPTION', 'DEFAULT', 'FIRST_PAYMENT']);
  await record(ch, other, 'event', ['aaa_other', 'zz_other']);
  await record(ch, other, 'payment', ['AAA_OTHER']);
  return { p, events };
}

describe('known event names', () => {
  it('when a project has more event names than the limit and none is asked, then the first ones by name are listed, with all its payment types and none of another project', async () => {
    const ch = await migratedTestClickHouse();
    const { p, events } = await manyNames(ch);

    const known = await selectKnownEventNames(ch, p, { events: null, payments: null });

    expect(known.events).toEqual(events.slice(0, KNOWN_NAMES_LIMIT));
    expect(known.payments).toEqual(['DEFAULT', 'FIRST_PAYMENT', 'SUBSCRIPTION']);
  });

  it('when names past the limit are asked, then every recorded one is listed and unrecorded or foreign ones are not', async () => {
    const ch = await migratedTestClickHouse();
    const { p, events } = await manyNames(ch);
    const last = events[events.length - 1] ?? '';

    const known = await selectKnownEventNames(ch, p, {
      events: [last, 'ev_0000', 'never_sent', 'zz_other'],
      payments: ['SUBSCRIPTION', 'AAA_OTHER'],
    });

    expect(known.events).toEqual(['ev_0000', last]);
    expect(known.payments).toEqual(['SUBSCRIPTION']);
  });

  it('when only one kind is asked, then the other kind is listed in full', async () => {
    const ch = await migratedTestClickHouse();
    const { p, events } = await manyNames(ch);

    const known = await selectKnownEventNames(ch, p, { events: null, payments: ['DEFAULT'] });

    expect(known.events).toEqual(events.slice(0, KNOWN_NAMES_LIMIT));
    expect(known.payments).toEqual(['DEFAULT']);
  });
});
