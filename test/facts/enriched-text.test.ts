// The writer adds the install's attribution to outbox rows (enrich-facts.ts): the added columns
// replace any the row already had, and every other value arrives exactly as written (quotes,
// backslashes, non-ASCII, emoji).
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { formatChTime, localDay } from '../../src/lib/time.ts';
import { insertOutboxRows } from '../../src/store/postgres/fact-outbox.ts';
import { attributedInstall, flushFacts, useClientHarness } from '../support/client.ts';
import { newProject } from '../support/harness.ts';

const h = useClientHarness();

describe('enriched rows', () => {
  it('when an event row already carries attribution keys and odd text, then ClickHouse gets the install’s attribution and the text unchanged', async () => {
    // Arrange: an attributed install, and an event of it whose row has stale attribution keys
    const { deps } = h();
    const p = await newProject(deps);
    const { campaign, iid } = await attributedInstall(h(), p);
    const eventId = `ev_${randomUUID()}`;
    const odd = 'quote " backslash \\ tab \t newline \n é 中文 🎉 {"nested": [1, 2]}';
    const now = Date.now();
    await insertOutboxRows(deps.sql, [
      {
        table: 'events',
        factId: eventId,
        projectId: p.project.id,
        enrichInstall: iid,
        row: {
          event_id: eventId,
          project_id: p.project.id,
          install_instance_id: iid,
          user_id: 'u1',
          event_name: odd,
          ts: formatChTime(now),
          project_tz: 'UTC',
          day: localDay(now, 'UTC'),
          platform: 'ANDROID',
          amount: '0',
          has_amount: 0,
          event_data: JSON.stringify({ note: odd }),
          campaign_id: 999_999,
          network: 'stale',
          install_day: '1999-01-01',
          reengagement_campaign_id: 999_999,
        },
      },
    ]);

    // Act
    await flushFacts(h());

    // Assert
    const rs = await deps.ch.query({
      query: `SELECT event_name, event_data, campaign_id, network, reengagement_campaign_id,
          toString(install_day) AS install_day
        FROM events WHERE project_id = {p:String} AND event_id = {e:String}`,
      format: 'JSONEachRow',
      query_params: { p: p.project.id, e: eventId },
    });
    const rows = await rs.json<Record<string, unknown>>();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      event_name: odd,
      event_data: JSON.stringify({ note: odd }),
      campaign_id: campaign.id,
      reengagement_campaign_id: 0,
    });
    expect(rows[0]?.network).not.toBe('stale');
    expect(rows[0]?.install_day).not.toBe('1999-01-01');
  });
});
