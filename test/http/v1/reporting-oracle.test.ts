// Oracle test for GET /api/v1/reporting/campaigns. A seeded generator (report-scenario.ts) makes
// two projects in different zones (Asia/Kolkata +05:30, America/New_York with DST) with campaigns,
// ad sets, creatives, keywords, clicks, installs, reinstalls, organic installs, app opens,
// re-engagements, sign-ups, events, payments, refunds and spend with restatements, spread over the
// 40 days before now. report-writer.ts sends it through the real write paths (link route, init +
// attribution job, trigger, capture-event, capture-payment, remove-captured-payment, handle-deeplink,
// the spend endpoint) with deps.now set to each fact's time, then flushes the fact writer.
// report-oracle.ts recomputes every reported number by brute force from the generated data, and the
// endpoint must answer exactly that for many random windows, filters, sorts, pages and event lists.
// Time: facts are stamped by deps.now (installs.created_at is moved to the scenario time, see
// report-writer.ts); the report's "today" is deps.now too, fixed at the scenario's now.
import { beforeAll, describe, expect, it } from 'vitest';
import { localDay } from '../../../src/lib/time.ts';
import { newProject, useHarness } from '../../support/harness.ts';
import { expectedReport, type OracleInput, type OracleQuery } from '../../support/report-oracle.ts';
import { deriveFacts } from '../../support/report-oracle-facts.ts';
import {
  EVENT_NAMES,
  generateScenario,
  int,
  PAYMENT_TYPES,
  pick,
  type Rng,
  seeded,
} from '../../support/report-scenario.ts';
import { writeScenario } from '../../support/report-writer.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

const SEED = 20_260_521;
const QUERIES_PER_PROJECT = 40;
const SORT_FIELDS = [
  'clicks',
  'installs',
  'signups',
  'revenue',
  'spend',
  'created_at',
  'uninstalls',
  'conversion',
  'suspicious_installs',
  'roas',
];
const PROJECTS = [
  { timezone: 'Asia/Kolkata', currency: 'INR', tag: 'K' },
  { timezone: 'America/New_York', currency: 'USD', tag: 'N' },
];

const nowMs = Date.now();
const oracles: OracleInput[] = [];

beforeAll(async () => {
  for (const [i, opts] of PROJECTS.entries()) {
    const s = generateScenario(SEED + i, nowMs, opts);
    const p = await newProject(h().deps, { timezone: opts.timezone, currency: opts.currency });
    const w = await writeScenario(h(), p, s);
    const { facts, installs } = deriveFacts(s);
    oracles.push({ s, w, facts, installs, today: localDay(nowMs, opts.timezone), publicUrl: 'https://attr.test' });
  }
  // The report's "today" stays the scenario's, even if the run crosses a midnight.
  h().deps.now = () => nowMs;
}, 600_000);

const subset = <T>(r: Rng, xs: readonly T[]): T[] => xs.filter(() => r() < 0.4);

/** A random query, and its URL form (aliases, enum case and defaults vary; the meaning does not). */
function randomQuery(r: Rng, o: OracleInput): { q: OracleQuery; url: string } {
  const params = new URLSearchParams();
  const day = () => addDaysTo(o.today, -int(r, 0, 42));
  let from: string | null = null;
  let to: string | null = null;
  const shape = r();
  if (shape < 0.7) {
    [from, to] = [day(), day()].sort() as [string, string];
  } else if (shape < 0.8) {
    from = day();
  } else if (shape < 0.9) {
    to = day();
  }
  const alias = r() < 0.5;
  if (from !== null) {
    params.set(alias ? 'start_date' : 'from', from);
  }
  if (to !== null) {
    params.set(alias ? 'end_date' : 'to', to);
  }
  const active = r() < 0.15 ? true : r() < 0.12 ? false : null;
  if (active !== null) {
    params.set('active', r() < 0.5 ? String(active) : String(active).toUpperCase());
  }
  const network = r() < 0.15 ? pick(r, ['meta', 'TikTok', 'google', 'apple search ads', 'nope']) : null;
  if (network !== null) {
    params.set('network', network);
  }
  const account = o.w.campaigns.find((c) => c.account)?.account?.id ?? 1;
  const metaAccountId = r() < 0.06 ? pick(r, [account, 999_999]) : null;
  if (metaAccountId !== null) {
    params.set('meta_account_id', String(metaAccountId));
  }
  const platform = r() < 0.3 ? pick(r, ['IOS', 'ANDROID'] as const) : null;
  if (platform !== null) {
    params.set('platform', r() < 0.5 ? platform.toLowerCase() : platform);
  }
  const c0 = o.w.campaigns[0];
  const search =
    r() < 0.2
      ? pick(r, [
          'alpha',
          'ETA',
          '%',
          '_',
          'tiktok 5',
          'shop.example',
          c0?.displayId ?? '',
          `https://attr.test/?c=${o.w.campaigns[1]?.displayId}&x=1`,
          o.w.campaigns[2]?.domain.name ?? '',
          'Gamma iOS N',
          'Gamma iOS K',
        ])
      : null;
  if (search !== null) {
    params.set('search', search);
  }
  const view = r() < 0.3 ? 'retargeting' : 'user_acquisition';
  if (view === 'retargeting' || r() < 0.2) {
    params.set('view', view);
  }
  const sortField = r() < 0.85 ? pick(r, SORT_FIELDS) : 'installs';
  if (sortField !== 'installs' || r() < 0.2) {
    params.set('sort_field', sortField);
  }
  const sortOrder = r() < 0.5 ? 'ascending' : 'descending';
  if (sortOrder === 'ascending' || r() < 0.2) {
    params.set('sort_order', sortOrder);
  }
  const limit = r() < 0.7 ? pick(r, [1, 2, 3, 5, 100]) : 10;
  if (limit !== 10) {
    params.set('limit', String(limit));
  }
  const page = r() < 0.6 ? int(r, 1, 4) : 1;
  if (page !== 1) {
    params.set('page', String(page));
  }
  const names = [...EVENT_NAMES, 'never_sent', 'hasOwnProperty'];
  const events = r() < 0.3 ? subset(r, names) : null;
  if (events !== null) {
    params.set('events', events.join(','));
  }
  const paymentEvents = r() < 0.2 ? subset(r, [...PAYMENT_TYPES, 'WALLET_TOPUP']) : null;
  if (paymentEvents !== null) {
    params.set('payment_events', paymentEvents.join(' , '));
  }
  const unique = r() < 0.3 ? subset(r, [...names, ...PAYMENT_TYPES]) : [];
  if (unique.length > 0) {
    params.set('unique_user_events', unique.join(','));
  }
  const costPer = r() < 0.3 ? subset(r, [...names, ...PAYMENT_TYPES]) : null;
  if (costPer !== null) {
    params.set('cost_per_event', costPer.join(','));
  }
  const activeUsers = r() < 0.3 ? int(r, 1, 40) : 7;
  if (activeUsers !== 7) {
    params.set('active_users', String(activeUsers));
  }
  const listOrNull = (xs: string[] | null) => (xs === null || xs.length === 0 ? null : [...new Set(xs)]);
  const q: OracleQuery = {
    from,
    to,
    active,
    network: network === null ? null : network.trim().toUpperCase().replace(/\s+/g, '_'),
    metaAccountId,
    platform,
    search: search === '' ? null : search,
    view,
    sortField,
    sortOrder,
    page,
    limit,
    events: listOrNull(events),
    paymentEvents: listOrNull(paymentEvents),
    unique,
    costPer: listOrNull(costPer),
    activeUsers,
  };
  return { q, url: params.toString() };
}

function addDaysTo(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
}

describe('GET /api/v1/reporting/campaigns oracle', () => {
  it('when the scenario is written, then the writes landed as generated, and every case is covered', async () => {
    for (const o of oracles) {
      const [row] = await h().deps.sql`
        SELECT count(*) FILTER (WHERE attribution_status = 'decided')::int AS decided,
          count(*) FILTER (WHERE campaign_id IS NULL)::int AS organic,
          count(*) FILTER (WHERE is_reinstall)::int AS reinstalls,
          count(*) FILTER (WHERE suspicious)::int AS suspicious
        FROM installs WHERE project_id = ${o.w.p.project.id}`;
      const decisions = o.facts.filter((f) => f.t === 'decision');
      const expected = {
        decided: o.s.installs.length,
        organic: o.s.installs.filter((x) => x.click === null).length,
        reinstalls: decisions.filter((f) => f.kind === 'reinstall').length,
        suspicious: decisions.filter((f) => f.suspicious).length,
      };
      expect(row).toEqual(expected);
      expect(Math.min(expected.organic, expected.reinstalls, expected.suspicious)).toBeGreaterThan(0);
      expect(decisions.filter((f) => f.kind === 'reengagement').length).toBeGreaterThan(0);
      expect(o.s.payments.filter((x) => x.removedTs !== null).length).toBeGreaterThan(0);
      expect(o.s.payments.filter((x) => x.status !== 'PAYMENT_COMPLETED').length).toBeGreaterThan(0);
      expect(o.s.spends.filter((x) => x.amounts.length > 1).length).toBeGreaterThan(0);
    }
  });

  it('when the whole project is asked for, then every row equals the brute-force answer', async () => {
    for (const o of oracles) {
      const res = await h().app.inject({
        method: 'GET',
        url: '/api/v1/reporting/campaigns?limit=100&cost_per_event=purchase,DEFAULT&unique_user_events=level_up,DEFAULT',
        headers: o.w.p.headers,
      });
      const q: OracleQuery = {
        from: null,
        to: null,
        active: null,
        network: null,
        metaAccountId: null,
        platform: null,
        search: null,
        view: 'user_acquisition',
        sortField: 'installs',
        sortOrder: 'descending',
        page: 1,
        limit: 100,
        events: null,
        paymentEvents: null,
        unique: ['level_up', 'DEFAULT'],
        costPer: ['purchase', 'DEFAULT'],
        activeUsers: 7,
      };
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toEqual(expectedReport(o, q));
    }
  });

  it('when random windows, filters, sorts, pages and event lists are asked, then each answer equals the oracle', async () => {
    const r = seeded(SEED);
    for (const o of oracles) {
      for (let i = 0; i < QUERIES_PER_PROJECT; i++) {
        const { q, url } = randomQuery(r, o);
        const res = await h().app.inject({
          method: 'GET',
          url: `/api/v1/reporting/campaigns?${url}`,
          headers: o.w.p.headers,
        });
        expect(res.statusCode, url).toBe(200);
        expect(res.json().data, url).toEqual(expectedReport(o, q));
      }
    }
  });
});
