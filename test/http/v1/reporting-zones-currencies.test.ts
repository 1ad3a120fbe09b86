// Report numbers and attributed-users windows in project zones with odd
// offsets (+5:45 Asia/Kathmandu, -3:30/-2:30 America/St_Johns on its DST day), through the real
// write paths (link click → init → attribution → trigger → capture-payment → fact writer), and money
// in currencies with 0 and 3 minor digits (JPY, KWD). Each number is compared with what the raw facts
// say (README "Reporting": project-local days, inclusive windows; Numbers: currency minor digits).
import { describe, expect, it } from 'vitest';
import { atIso, expectStatus, installFromClick } from '../../support/click-install.ts';
import { flushFacts, post } from '../../support/client.ts';
import * as f from '../../support/factories.ts';
import { type Harness, newProject, type TestProject, useHarness } from '../../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

type Obj = Record<string, unknown>;

/** Click at clickIso, Android install at installIso (attributed then), trigger user, a payment. */
async function userFromClick(
  hh: Harness,
  p: TestProject,
  displayId: string,
  clickIso: string,
  installIso: string,
  userId: string,
  payment?: { amount: number; iso: string },
) {
  const { iid } = await installFromClick(
    hh,
    p,
    { displayId, query: 'adset_id=as1&adset_name=Set&ad_id=cr1&ad_name=Cr' },
    clickIso,
    installIso,
  );
  const base = { token: p.token, platform: 'ANDROID', install_instance_id: iid };
  expectStatus(
    await atIso(hh, installIso, () => post(hh, 'trigger', { ...base, user_data: { id: userId } })),
    200,
    'trigger',
  );
  if (payment) {
    const pay = {
      ...base,
      amount: payment.amount,
      payment_id: `p-${userId}`,
      type: 'DEFAULT',
      status: 'PAYMENT_COMPLETED',
    };
    expectStatus(await atIso(hh, payment.iso, () => post(hh, 'capture-payment', pay)), 201, 'capture-payment');
  }
  return iid;
}

async function rowOf(hh: Harness, p: TestProject, id: number, query: string): Promise<Obj> {
  const res = await hh.app.inject({ method: 'GET', url: `/api/v1/reporting/campaigns?${query}`, headers: p.headers });
  expect(res.statusCode, res.body).toBe(200);
  const row = (res.json().data.campaigns as Obj[]).find((c) => c.id === id);
  if (!row) {
    throw new Error(`campaign ${id} not in the report`);
  }
  return row;
}

async function usersIn(hh: Harness, p: TestProject, displayId: string, query: string): Promise<string[]> {
  const res = await hh.app.inject({
    method: 'GET',
    url: `/api/v1/attributed-users?display_id=${displayId}&${query}`,
    headers: p.headers,
  });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json().data.users as { user_data: { id: string } }[]).map((u) => u.user_data.id).sort();
}

describe('reporting in odd zones and currencies', () => {
  it('when facts fall either side of local midnight in +5:45, then one-day windows split them by the local day', async () => {
    const hh = h();
    const p = await newProject(hh.deps, { timezone: 'Asia/Kathmandu' });
    const play = await f.storeListing(hh.deps, p, 'ANDROID');
    const c = await f.campaign(hh.app, p, { name: 'NPT', store_listing_ids: [play.id] });
    // Local midnight of 2025-03-10 is 2025-03-09T18:15Z.
    await userFromClick(hh, p, c.display_id, '2025-03-09T18:00:00Z', '2025-03-09T18:14:00Z', 'before', {
      amount: 10,
      iso: '2025-03-09T18:14:30Z',
    });
    await userFromClick(hh, p, c.display_id, '2025-03-09T18:15:30Z', '2025-03-09T18:16:00Z', 'after', {
      amount: 7,
      iso: '2025-03-09T18:16:30Z',
    });
    await flushFacts(hh);

    const d9 = await rowOf(hh, p, c.id, 'from=2025-03-09&to=2025-03-09');
    const d10 = await rowOf(hh, p, c.id, 'from=2025-03-10&to=2025-03-10');
    expect(d9).toMatchObject({ clicks: '1', installs: '1', 'sign-ups': '1', revenue: '$10.00' });
    expect(d10).toMatchObject({ clicks: '1', installs: '1', 'sign-ups': '1', revenue: '$7.00' });

    expect(
      await usersIn(hh, p, c.display_id, 'timezone=Asia/Kathmandu&start_timestamp=2025-03-10T00:00:00.000'),
    ).toEqual(['after']);
    expect(await usersIn(hh, p, c.display_id, 'timezone=Asia/Kathmandu&end_timestamp=2025-03-09T23:59:59.999')).toEqual(
      ['before'],
    );
  });

  it('when facts fall either side of local midnight on a -3:30 zone DST day, then one-day windows split them', async () => {
    const hh = h();
    const p = await newProject(hh.deps, { timezone: 'America/St_Johns' });
    const play = await f.storeListing(hh.deps, p, 'ANDROID');
    const c = await f.campaign(hh.app, p, { name: 'NST', store_listing_ids: [play.id] });
    // 2025-03-09 is the DST day (NST -3:30 → NDT -2:30 at 02:00 local). Midnight ending it: 02:30Z on 03-10.
    // 2025-03-09 00:10 NST = 03:40Z; 2025-03-09 23:50 NDT = 02:20Z (03-10); 2025-03-10 00:10 NDT = 02:40Z.
    await userFromClick(hh, p, c.display_id, '2025-03-09T03:35:00Z', '2025-03-09T03:40:00Z', 'first');
    await userFromClick(hh, p, c.display_id, '2025-03-10T02:15:00Z', '2025-03-10T02:20:00Z', 'last');
    await userFromClick(hh, p, c.display_id, '2025-03-10T02:35:00Z', '2025-03-10T02:40:00Z', 'next');
    await flushFacts(hh);

    const d9 = await rowOf(hh, p, c.id, 'from=2025-03-09&to=2025-03-09');
    const d10 = await rowOf(hh, p, c.id, 'start_date=2025-03-10&end_date=2025-03-10');
    expect(d9).toMatchObject({ clicks: '2', installs: '2', 'sign-ups': '2' });
    expect(d10).toMatchObject({ clicks: '1', installs: '1', 'sign-ups': '1' });

    // The same local day through attributed-users: 00:00 to 23:59:59.999 in the zone, a 23-hour day.
    const day = 'timezone=America/St_Johns&start_timestamp=2025-03-09T00:00:00&end_timestamp=2025-03-09T23:59:59.999';
    expect(await usersIn(hh, p, c.display_id, day)).toEqual(['first', 'last']);
    // 02:30 on the DST day does not exist: it moves forward by the gap (03:30 NDT = 06:00Z), after 'first'.
    const gap = 'timezone=America/St_Johns&start_timestamp=2025-03-09T02:30:00&end_timestamp=2025-03-09T23:59:59.999';
    expect(await usersIn(hh, p, c.display_id, gap)).toEqual(['last']);
  });

  it('when the currency has 3 minor digits (KWD) or none (JPY), then revenue, spend and costs use them', async () => {
    const hh = h();
    for (const [currency, revenue, spend, cpi, roas] of [
      // Intl puts a no-break space (U+00A0) between an ISO code and the number.
      ['KWD', 'KWD\u00a012.346', 'KWD\u00a010.000', 'KWD\u00a03.333', '1.23x'],
      ['JPY', '¥12', '¥10', '¥3', '1.23x'],
    ] as const) {
      const p = await newProject(hh.deps, { currency });
      const play = await f.storeListing(hh.deps, p, 'ANDROID');
      const c = await f.campaign(hh.app, p, { name: `Money ${currency}`, store_listing_ids: [play.id] });
      const t = '2025-04-01T10:00:00Z';
      await userFromClick(hh, p, c.display_id, '2025-04-01T09:59:00Z', t, `${currency}-a`, {
        amount: 12.3456,
        iso: '2025-04-01T10:01:00Z',
      });
      await userFromClick(hh, p, c.display_id, '2025-04-01T09:58:00Z', t, `${currency}-b`);
      await userFromClick(hh, p, c.display_id, '2025-04-01T09:57:00Z', t, `${currency}-c`);
      const put = await hh.app.inject({
        method: 'PUT',
        url: '/api/v1/spend',
        headers: p.headers,
        payload: { rows: [{ day: '2025-04-01', campaign_display_id: c.display_id, amount: 10 }] },
      });
      expect(put.statusCode, put.body).toBe(200);
      await flushFacts(hh);

      const row = await rowOf(hh, p, c.id, 'from=2025-04-01&to=2025-04-01&cost_per_event=DEFAULT');
      expect(row).toMatchObject({
        installs: '3',
        revenue,
        spend,
        cost_per_install: cpi,
        cost_per_signup: cpi,
        roas,
        revenue_event_count: '1',
        cost_per_payment_events: { DEFAULT: spend },
      });
    }
  });
});
