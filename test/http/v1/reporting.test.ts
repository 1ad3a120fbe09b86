// GET /api/v1/reporting/campaigns (spec: reporting endpoint, "Reporting campaign row", Limits,
// Errors): the envelope and the full row shape, every error text (401, 402 with payment_link, 422
// page/limit, 400 query), 1 request per minute per key with Retry-After: 60, the 60 s cache, and
// tenant isolation (catalog D4/D5). Metrics, formatting and nesting: reporting-metrics.test.ts;
// every number against a brute-force oracle: reporting-oracle.test.ts.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Deps } from '../../../src/deps.ts';
import { setBilling } from '../../../src/domain/projects/set-billing.ts';
import { hashKey } from '../../../src/lib/ids.ts';
import { insertServerKey } from '../../../src/store/postgres/projects.ts';
import * as f from '../../support/factories.ts';
import { type Harness, newProject, type TestProject, useHarness } from '../../support/harness.ts';
import * as r from '../../support/report-facts.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

function report(p: TestProject | { headers: Record<string, string> }, query = '', harness: Harness = h()) {
  return harness.app.inject({
    method: 'GET',
    url: `/api/v1/reporting/campaigns${query ? `?${query}` : ''}`,
    headers: p.headers,
  });
}

const fail = (status: number, msg: string) => ({ msg, status });

describe('GET /api/v1/reporting/campaigns', () => {
  describe('200', () => {
    it('when the project has no campaigns, then an empty page in the spec envelope', async () => {
      const p = await newProject(h().deps);

      const res = await report(p);

      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        msg: 'Campaigns fetched successfully',
        status: 200,
        data: {
          campaigns: [],
          pagination: { total: 0, pages: 0, page: 1, limit: 10 },
          display_currency: 'USD',
          view: 'user_acquisition',
        },
      });
    });

    it('when a campaign has no facts, then its row has every spec field, zeros and "-" for ratios', async () => {
      const { app, deps } = h();
      const p = await newProject(deps, { currency: 'INR' });
      const domain = await f.domain(deps, p, { primary: true });
      const android = await f.storeListing(deps, p, 'ANDROID', 'Play custom');
      const ios = await f.storeListing(deps, p, 'IOS', 'App Store page');
      const account = await f.networkAccount(deps, p, 'META');
      const c = await f.campaign(app, p, {
        name: 'Diwali',
        deeplink: 'myapp://sale',
        ad_network: 'meta',
        store_listing_ids: [ios.id, android.id],
      });
      await deps.sql`UPDATE campaigns SET network_account_id = ${account.id} WHERE id = ${c.id}`;
      const [row] = await deps.sql<{ created_at: Date }[]>`SELECT created_at FROM campaigns WHERE id = ${c.id}`;

      const res = await report(p);

      expect(res.statusCode).toBe(200);
      const zero = '₹0.00';
      const events = { custom_events: {}, payment_events: {} };
      expect(res.json().data).toEqual({
        campaigns: [
          {
            id: c.id,
            active: true,
            created_at: row?.created_at.toISOString(),
            display_id: c.display_id,
            link: `https://${domain.name}/?c=${c.display_id}`,
            name: 'Diwali',
            clicks: '0',
            installs: '0',
            'sign-ups': '0',
            uninstalls: '0',
            suspicious_installs: '0',
            click_through_attribution: '0',
            view_through_attribution: '0',
            conversion: '-',
            revenue: zero,
            revenue_event_count: '0',
            spend: zero,
            roas: '-',
            cost_per_install: '-',
            cost_per_signup: '-',
            meta: true,
            meta_web_to_app: false,
            google: false,
            google_web_to_app: false,
            tiktok: false,
            snapchat: false,
            linkedin: false,
            ad_network_code: 'META',
            ios: true,
            android: true,
            activity_in_last_x_days: 0,
            has_date_filter: false,
            domain: { id: domain.id, name: domain.name },
            custom_store_listing: 'Play custom, App Store page',
            active_users: 0,
            ...events,
            retention: { d1: '-', d7: '-' },
            classic_retention: { d1: '-', d7: '-', d14: '-', d30: '-' },
            daywise_revenue: { d0: '-', d3: '-', d7: '-', d30: '-' },
            network_account: {
              id: account.id,
              name: 'META account',
              email: '',
              status: 'ACTIVE',
              capi_configured: false,
            },
            adSets: [],
            keywords: [],
          },
        ],
        pagination: { total: 1, pages: 1, page: 1, limit: 10 },
        display_currency: 'INR',
        view: 'user_acquisition',
      });
    });

    it('when the page is any positive integer past the end, however large, then 200 with an empty page', async () => {
      const { app, deps } = h();
      const p = await newProject(deps);
      await f.campaign(app, p, { name: 'One' });

      const million = await report(p, 'page=1000001');
      const huge = await report(p, 'page=99999999999999999999&limit=100');

      expect(million.statusCode).toBe(200);
      expect(million.json().data).toMatchObject({
        campaigns: [],
        pagination: { total: 1, pages: 1, page: 1_000_001, limit: 10 },
      });
      expect(huge.statusCode).toBe(200);
      expect(huge.json().data).toMatchObject({
        campaigns: [],
        pagination: { total: 1, pages: 1, page: 1e20, limit: 100 },
      });
    });

    it('when a campaign was deleted, then it is not listed', async () => {
      const { app, deps } = h();
      const p = await newProject(deps);
      const kept = await f.campaign(app, p, { name: 'Kept' });
      const gone = await f.campaign(app, p, { name: 'Gone' });
      await app.inject({ method: 'DELETE', url: `/api/v1/campaigns/${gone.display_id}`, headers: p.headers });

      const res = await report(p);

      expect(res.json().data.campaigns.map((x: { id: number }) => x.id)).toEqual([kept.id]);
    });
  });

  describe('400', () => {
    const cases: [string, string][] = [
      ['from=2024-02-30', "Invalid from '2024-02-30'. Use a calendar date in the form YYYY-MM-DD."],
      ['from=2024-1-05', "Invalid from '2024-1-05'. Use a calendar date in the form YYYY-MM-DD."],
      ['to=2024-13-01', "Invalid to '2024-13-01'. Use a calendar date in the form YYYY-MM-DD."],
      ['start_date=yesterday', "Invalid start_date 'yesterday'. Use a calendar date in the form YYYY-MM-DD."],
      ['end_date=2024-02-29T00:00', "Invalid end_date '2024-02-29T00:00'. Use a calendar date in the form YYYY-MM-DD."],
      ['from=0000-01-01', "Invalid from '0000-01-01'. Use a calendar date in the form YYYY-MM-DD."],
      ['from=0050-02-29', "Invalid from '0050-02-29'. Use a calendar date in the form YYYY-MM-DD."],
      ['from=2024-03-02&to=2024-03-01', "'from' must not be after 'to'."],
      ['start_date=2024-03-02&end_date=2024-03-01', "'from' must not be after 'to'."],
      ['active=yes', "Invalid active 'yes'. Use true or false."],
      ['meta_account_id=abc', "Invalid meta_account_id 'abc'. Use a positive integer."],
      ['meta_account_id=0', "Invalid meta_account_id '0'. Use a positive integer."],
      ['meta_account_id=99999999999', "Invalid meta_account_id '99999999999'. Use a positive integer."],
      ['platform=web', "Invalid platform 'web'. Use ios or android."],
      [`search=${'x'.repeat(501)}`, 'search must be at most 500 characters.'],
      ['view=organic', "Invalid view 'organic'. Use user_acquisition or retargeting."],
      [
        'sort_field=installs;DROP',
        "Invalid sort_field 'installs;DROP'. Use clicks, installs, signups, revenue, spend, created_at, uninstalls, conversion, suspicious_installs or roas.",
      ],
      ['sort_order=x', "Invalid sort_order 'x'. Use ascending or descending."],
      [`events=${Array.from({ length: 101 }, (_, i) => `e${i}`).join(',')}`, 'events may list at most 100 names.'],
      [
        `cost_per_event=${Array.from({ length: 101 }, (_, i) => `e${i}`).join(',')}`,
        'cost_per_event may list at most 100 names.',
      ],
      ['active_users=-1', "Invalid active_users '-1'. Use a whole number of days from 1 to 365."],
      ['active_users=0', "Invalid active_users '0'. Use a whole number of days from 1 to 365."],
      ['active_users=366', "Invalid active_users '366'. Use a whole number of days from 1 to 365."],
      ['active_users=1e9', "Invalid active_users '1e9'. Use a whole number of days from 1 to 365."],
      ['active_users=NaN', "Invalid active_users 'NaN'. Use a whole number of days from 1 to 365."],
      ['active_users=7.5', "Invalid active_users '7.5'. Use a whole number of days from 1 to 365."],
      ['view=retargeting&view=user_acquisition', 'view must be given at most once.'],
      ['from=2024-01-01&from=2024-01-02', 'from must be given at most once.'],
    ];
    for (const [query, msg] of cases) {
      it(`when ${query.slice(0, 60)}, then 400 "${msg.slice(0, 50)}"`, async () => {
        const p = await newProject(h().deps);

        const res = await report(p, query);

        expect(res.statusCode).toBe(400);
        expect(res.json()).toEqual(fail(400, msg));
      });
    }

    it('when the dates are valid but far apart or far in the future, then 200', async () => {
      const p = await newProject(h().deps);

      const res = await report(p, 'from=1900-01-01&to=9999-12-31');

      expect(res.statusCode).toBe(200);
      expect(res.json().data.campaigns).toEqual([]);
    });

    it.each(['0001-01-01', '0050-01-01', '0099-12-31', '0048-02-29'])(
      'when from is %s (a year before 100), then it is a date like any other: 200',
      async (day) => {
        // Date.UTC reads years 0-99 as 1900-1999: these were refused as invalid dates.
        const p = await newProject(h().deps);
        const res = await report(p, `from=${day}&to=2024-01-01`);
        expect(res.statusCode).toBe(200);
      },
    );
  });

  describe('401', () => {
    it('when the service-key header is missing, then 401 "Unauthorized access."', async () => {
      const res = await report({ headers: {} });

      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual(fail(401, 'Unauthorized access.'));
    });

    it('when the key is unknown, then 401 "Unauthorized access."', async () => {
      const res = await report({ headers: { 'service-key': `sk_${randomUUID()}` } });

      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual(fail(401, 'Unauthorized access.'));
    });

    it('when the project token is sent as the key, then 401 (the token never unlocks /api/v1)', async () => {
      const p = await newProject(h().deps);

      const res = await report({ headers: { 'service-key': p.token } });

      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual(fail(401, 'Unauthorized access.'));
    });
  });

  describe('402', () => {
    it('when billing is suspended, then 402 with the payment link, and 200 again once restored', async () => {
      const { deps } = h();
      const p = await newProject(deps);
      await setBilling(deps, p.project.id, { suspended: 'true', paymentLink: 'https://pay.example.com/inv/42' });

      const suspended = await report(p, 'page=0');
      await setBilling(deps, p.project.id, { suspended: 'false' });
      const restored = await report(p);

      expect(suspended.statusCode).toBe(402);
      expect(suspended.json()).toEqual({
        msg: 'Billing account suspended. Complete the payment at payment_link to restore reporting.',
        status: 402,
        payment_link: 'https://pay.example.com/inv/42',
      });
      expect(restored.statusCode).toBe(200);
      const [row] = await deps.sql`SELECT billing_suspended, payment_link FROM projects WHERE id = ${p.project.id}`;
      expect(row).toEqual({ billing_suspended: false, payment_link: 'https://pay.example.com/inv/42' });
    });

    it('when billing is suspended without a link, then payment_link is null', async () => {
      const { deps } = h();
      const p = await newProject(deps);
      await setBilling(deps, p.project.id, { suspended: 'true' });

      const res = await report(p);

      expect(res.statusCode).toBe(402);
      expect(res.json()).toEqual({
        msg: 'Billing account suspended. Complete the payment at payment_link to restore reporting.',
        status: 402,
        payment_link: null,
      });
    });

    it('when the operator gives a bad flag, then set-billing refuses it', async () => {
      const p = await newProject(h().deps);

      await expect(setBilling(h().deps, p.project.id, { suspended: 'yes' })).rejects.toThrow(
        "--suspended 'yes' must be true or false",
      );
      await expect(
        setBilling(h().deps, p.project.id, { suspended: 'true', paymentLink: 'javascript:alert(1)' }),
      ).rejects.toThrow("--payment-link 'javascript:alert(1)' must be an http(s) URL");
    });
  });

  describe('422', () => {
    const cases: [string, string][] = [
      ['page=0', "Invalid page number '0'. Page must be a positive integer."],
      ['page=abc', "Invalid page number 'abc'. Page must be a positive integer."],
      ['page=1.5', "Invalid page number '1.5'. Page must be a positive integer."],
      ['page=1&page=2', "Invalid page number '1,2'. Page must be a positive integer."],
      ['limit=0', "Invalid limit '0'. Limit must be an integer between 1 and 100."],
      ['limit=abc', "Invalid limit 'abc'. Limit must be an integer between 1 and 100."],
      ['limit=101', "Limit '101' exceeds the maximum of 100."],
      ['limit=1000', "Limit '1000' exceeds the maximum of 100."],
    ];
    for (const [query, msg] of cases) {
      it(`when ${query}, then 422 "${msg}"`, async () => {
        const p = await newProject(h().deps);

        const res = await report(p, query);

        expect(res.statusCode).toBe(422);
        expect(res.json()).toEqual(fail(422, msg));
      });
    }

    it('when limit=100, then 200 with that limit', async () => {
      const p = await newProject(h().deps);

      const res = await report(p, 'limit=100&page=3');

      expect(res.json().data.pagination).toEqual({ total: 0, pages: 0, page: 3, limit: 100 });
    });
  });

  describe('cache', () => {
    it('when the same query comes again within 60 s, then the cached answer is served', async () => {
      const { app, deps } = h();
      const p = await newProject(deps);
      const c = await f.campaign(app, p, { name: 'Cached' });
      const a = { campaignId: c.id };
      await r.insertFacts(deps, 'clicks', [r.click(p, a, '2025-01-10')]);
      const first = await report(p, 'from=2025-01-01&to=2025-01-31&sort_field=clicks');
      await r.insertFacts(deps, 'clicks', [r.click(p, a, '2025-01-10')]);

      const again = await report(p, 'start_date=2025-01-01&sort_field=CLICKS&end_date=2025-01-31');
      const other = await report(p, 'from=2025-01-01&to=2025-01-31');

      expect(first.json().data.campaigns[0].clicks).toBe('1');
      expect(again.body).toBe(first.body);
      expect(other.json().data.campaigns[0].clicks).toBe('2');
    });
  });

  describe('tenant isolation', () => {
    it("when B asks with A's name, ids or the same query, then B never sees A's campaigns, numbers or cache", async () => {
      const { app, deps } = h();
      const a = await newProject(deps);
      const b = await newProject(deps);
      const ca = await f.campaign(app, a, { name: 'Alpha secret' });
      const cb = await f.campaign(app, b, { name: 'Beta' });
      await r.insertFacts(deps, 'clicks', [r.click(a, { campaignId: ca.id }, '2025-02-01')]);
      const query = 'from=2025-02-01&to=2025-02-01';
      const aRes = await report(a, query);

      const bSame = await report(b, query);
      const bSearch = await report(b, `search=${encodeURIComponent('Alpha secret')}`);
      const bById = await report(b, `search=${ca.display_id}`);
      const bLink = await report(b, `search=${encodeURIComponent(`https://attr.test/?c=${ca.display_id}`)}`);

      expect(aRes.json().data.campaigns.map((x: { id: number; clicks: string }) => [x.id, x.clicks])).toEqual([
        [ca.id, '1'],
      ]);
      expect(bSame.json().data.campaigns.map((x: { id: number; clicks: string }) => [x.id, x.clicks])).toEqual([
        [cb.id, '0'],
      ]);
      for (const res of [bSearch, bById, bLink]) {
        expect(res.statusCode).toBe(200);
        expect(res.json().data.campaigns).toEqual([]);
      }
    });

    it("when B writes campaigns and facts, then A's report is unchanged", async () => {
      const { app, deps } = h();
      const a = await newProject(deps);
      const b = await newProject(deps);
      const ca = await f.campaign(app, a, { name: 'Alpha' });
      await r.insertFacts(deps, 'clicks', [r.click(a, { campaignId: ca.id }, '2025-02-01')]);
      const before = await report(a, 'limit=10');

      const cb = await f.campaign(app, b, { name: 'Alpha' });
      const x = r.newInstall({ campaignId: cb.id }, '2025-02-01');
      await r.insertFacts(deps, 'clicks', [r.click(b, { campaignId: cb.id }, '2025-02-01')]);
      await r.insertFacts(deps, 'attributions', [r.attribution(b, x)]);
      await r.insertFacts(deps, 'events', [r.event(b, x, 'u', 'only_b', '2025-02-01')]);
      await r.insertFacts(deps, 'payments', [r.payment(b, x, 'u', '2025-02-01', '9')]);
      const after = await report(a, 'limit=11');

      expect({ ...after.json().data, pagination: null }).toEqual({ ...before.json().data, pagination: null });
    });
  });
});

describe('GET /api/v1/reporting/campaigns with rate limits on', () => {
  const limited = useHarness({ env: { RATE_LIMITS_ENABLED: 'true', RATE_LIMIT_IP_PER_SECOND: '1000000' } });

  /** Runs `body` with the service's clock (deps.now) held at one instant. */
  async function atOneInstant<T>(deps: Deps, body: () => Promise<T>): Promise<T> {
    const real = deps.now;
    const at = real();
    deps.now = () => at;
    try {
      return await body();
    } finally {
      deps.now = real;
    }
  }

  describe('429', () => {
    it('when a key asks twice within a minute, then 429 with Retry-After: 60; another key of the project is served', async () => {
      const { deps } = limited();
      const p = await newProject(deps);
      const secondKey = `sk_${randomUUID()}`;
      await insertServerKey(deps.sql, p.project.id, hashKey(secondKey), secondKey.slice(0, 8));

      // The limit counts per wall-clock minute: the clock is held, so a minute ending between the
      // two requests (the first runs a report) cannot put them in two windows.
      const [first, second, otherKey] = await atOneInstant(deps, async () => [
        await report(p, 'limit=5', limited()),
        await report(p, 'limit=5', limited()),
        await report({ headers: { 'service-key': secondKey } }, 'limit=5', limited()),
      ]);

      expect(first.statusCode).toBe(200);
      expect(second.statusCode).toBe(429);
      expect(second.headers['retry-after']).toBe('60');
      expect(second.json()).toEqual(fail(429, 'Rate limit exceeded. Please try again later.'));
      expect(otherKey.statusCode).toBe(200);
      expect(otherKey.body).toBe(first.body);
    });

    it('when a limited key asks again, then the rate limit answers before billing or the query is checked', async () => {
      const { deps } = limited();
      const p = await newProject(deps);
      const res = await atOneInstant(deps, async () => {
        await report(p, '', limited());
        await setBilling(deps, p.project.id, { suspended: 'true', paymentLink: 'https://pay.example.com/x' });
        return report(p, 'page=0', limited());
      });

      expect(res.statusCode).toBe(429);
      expect(res.headers['retry-after']).toBe('60');
    });
  });
});
