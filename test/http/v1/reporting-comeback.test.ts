// README "Reporting", cohort metrics: "an install is active on a day when it called init that
// day (the install itself or an app open)". A capture-event (no init) from an install that uninstall
// tracking had marked uninstalled writes an install_events row of kind reinstall_after_uninstall
// (README "Uninstall tracking"), and that row was counted as the install being active that day (ClickHouse migration 0025 leaves it out).
import { describe, expect, it } from 'vitest';
import { flushAllFacts } from '../../../src/domain/facts/flush-facts.ts';
import { FACT_TABLES } from '../../../src/domain/facts/tables.ts';
import { localDay } from '../../../src/lib/time.ts';
import { newProject, useHarness } from '../../support/harness.ts';
import type { Scenario } from '../../support/report-scenario.ts';
import { writeScenario } from '../../support/report-writer.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('retention counts only days with an init', () => {
  it('when an uninstalled install sends only a capture-event on day 1, then it is not retained on day 1', async () => {
    const tz = 'America/New_York';
    const installTs = Date.now() - 10 * DAY;
    const s: Scenario = {
      timezone: tz,
      currency: 'USD',
      campaigns: [
        {
          name: 'Comeback',
          network: null,
          listings: ['ANDROID'],
          active: true,
          ownDomain: false,
          deeplink: null,
          withAccount: false,
          deleted: false,
          adSets: [],
        },
      ],
      clicks: [
        {
          campaign: 0,
          adSet: null,
          creative: null,
          keyword: null,
          platform: 'ANDROID',
          ts: installTs - HOUR,
          ip: '10.91.0.1',
          idfa: null,
        },
      ],
      installs: [
        {
          iid: '00000000-0000-4000-a000-00000000c0b1',
          platform: 'ANDROID',
          deviceId: '11111111-0000-4000-a000-00000000c0b1',
          ts: installTs,
          click: 0,
          ip: '10.91.0.2',
        },
      ],
      opens: [],
      reengagements: [],
      signups: [{ install: 0, userId: 'comeback-user', ts: installTs + 60_000 }],
      events: [],
      payments: [],
      spends: [
        {
          campaign: 0,
          adSet: null,
          creative: null,
          keyword: null,
          day: localDay(installTs, tz),
          amounts: ['1.00', '2.00'],
        },
      ],
    };
    const { app, deps } = h();
    const p = await newProject(deps, { timezone: tz });
    const w = await writeScenario(h(), p, s);
    // Uninstall tracking marked the install uninstalled (its third failed push day).
    await deps.sql`UPDATE installs SET uninstalled_at = ${new Date(installTs + 6 * HOUR)}
      WHERE project_id = ${p.project.id} AND install_instance_id = ${s.installs[0]?.iid ?? ''}`;
    // Day 1: the app sends an event, but never calls init that day.
    const day1 = installTs + DAY;
    const real = deps.now;
    deps.now = () => day1;
    const res = await app.inject({
      method: 'POST',
      url: '/api/client/capture-event',
      payload: {
        token: p.token,
        platform: 'ANDROID',
        install_instance_id: s.installs[0]?.iid,
        event_name: 'level_up',
        event_data: {},
      },
      remoteAddress: '10.91.0.2',
    });
    expect(res.statusCode).toBe(200);
    deps.now = real;
    await flushAllFacts(deps, FACT_TABLES);

    const d0 = localDay(installTs, tz);
    const report = await app.inject({
      method: 'GET',
      url: `/api/v1/reporting/campaigns?from=${d0}&to=${d0}`,
      headers: p.headers,
    });
    const row = report.json().data.campaigns.find((c: { id: number }) => c.id === w.campaigns[0]?.id);
    expect(row.installs).toBe('1');
    // Only day 0 had an init: classic d1 and rolling d1 must be 0 %.
    expect({ retention: row.retention, classic_d1: row.classic_retention.d1 }).toEqual({
      retention: { d1: '0.00%', d7: '0.00%' },
      classic_d1: '0.00%',
    });
  });
});
