// Odd but well-formed query values never answer 5xx, and the answer is
// the README's. Dates at and beyond the stored Date range, windows of one day at the edges,
// active_users reaching before 1970, NUL in lists, huge pages.
import { describe, expect, it } from 'vitest';
import * as f from '../../support/factories.ts';
import { newProject, useHarness } from '../../support/harness.ts';
import * as r from '../../support/report-facts.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

const QUERIES: [string, number][] = [
  ['from=1970-01-01&to=1970-01-01&active_users=365', 200],
  ['from=2149-06-06&to=2149-06-06', 200],
  ['from=2149-06-01&to=9999-12-31&sort_field=spend', 200],
  ['from=0001-01-01&to=0001-01-01&sort_field=roas&sort_order=ascending', 200],
  ['to=0001-01-01&active_users=1', 200],
  ['from=9999-12-31', 200],
  ['events=a%00b,purchase&unique_user_events=a%00b,purchase&cost_per_event=%00', 200],
  ['payment_events=%00&unique_user_events=DEFAULT', 200],
  ['network=%00', 200],
  ['search=%25%00', 200],
  ['search=%F0%9F%98%80', 200],
  ['network=%E2%80%AE', 200],
  ['page=99999999999999999999999999999999999999&limit=100', 200],
  [`page=${'9'.repeat(400)}`, 200],
  ['sort_field=__proto__', 400],
  ['view=constructor', 400],
  ['from=2024-02-30', 400],
  ['from=2024-03-02&to=2024-03-01', 400],
  ['active_users=0', 400],
  ['active_users=366', 400],
  ['limit=101', 422],
  ['page=0', 422],
];

describe('reporting with odd query values', () => {
  it('when odd values are sent, then each answers its README status, never 5xx', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const c = await f.campaign(app, p, { name: 'Odd' });
    const x = r.newInstall({ campaignId: c.id }, '1970-01-01');
    await r.insertFacts(deps, 'attributions', [r.attribution(p, x)]);
    await r.insertFacts(deps, 'events', [r.event(p, x, 'u1', 'purchase', '1970-01-01', '1')]);
    const got: [string, number][] = [];
    for (const [q] of QUERIES) {
      const res = await app.inject({ method: 'GET', url: `/api/v1/reporting/campaigns?${q}`, headers: p.headers });
      got.push([q, res.statusCode]);
    }
    expect(got).toEqual(QUERIES);
  });
});
