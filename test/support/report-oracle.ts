// Brute-force expected answer of GET /api/v1/reporting/campaigns for a scenario: every number is
// recomputed from the derived facts (report-oracle-facts.ts) by filtering and counting in plain
// TypeScript, following the README "Reporting" definitions; no aggregate table or report code is
// used. Only the final text is made with domain/reporting/format.ts (the formatter has its own unit
// tests), so a mismatch here is a number, not a formatting difference. Ratios and money are exact
// (bigint fractions, compared by cross-multiplying), never floats: the formatter rounds them once.
import { formatCount, formatMoney, formatMultiplier, formatPercent } from '../../src/domain/reporting/format.ts';
import type { Ratio } from '../../src/domain/reporting/ratio.ts';
import type { OFact, OInstall } from './report-oracle-facts.ts';
import type { Scenario } from './report-scenario.ts';
import type { Written } from './report-writer.ts';

export type OracleQuery = {
  from: string | null;
  to: string | null;
  active: boolean | null;
  network: string | null;
  metaAccountId: number | null;
  platform: 'IOS' | 'ANDROID' | null;
  search: string | null;
  view: 'user_acquisition' | 'retargeting';
  sortField: string;
  sortOrder: 'ascending' | 'descending';
  page: number;
  limit: number;
  events: string[] | null;
  paymentEvents: string[] | null;
  unique: string[];
  costPer: string[] | null;
  activeUsers: number;
};

export type OracleInput = {
  s: Scenario;
  w: Written;
  facts: OFact[];
  installs: OInstall[];
  today: string;
  publicUrl: string;
};

const DASH = '-';
const NANO = 1_000_000_000n;
const nano = (s: string): bigint => {
  const [i = '0', f = ''] = s.split('.');
  return BigInt(i) * NANO + BigInt(f.padEnd(9, '0').slice(0, 9));
};
const dec = (n: bigint): string => {
  const neg = n < 0n;
  const a = neg ? -n : n;
  const frac = (a % NANO).toString().padStart(9, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${a / NANO}${frac ? `.${frac}` : ''}`;
};
const dayNum = (d: string) => Date.parse(`${d}T00:00:00Z`) / 86_400_000;
const addDays = (d: string, n: number) => new Date((dayNum(d) + n) * 86_400_000).toISOString().slice(0, 10);
const minDay = (a: string, b: string) => (a < b ? a : b);
const div = (a: bigint | number, b: bigint | number): Ratio | undefined => {
  const [num, den] = [BigInt(a), BigInt(b)];
  return den === 0n ? undefined : den < 0n ? { num: -num, den: -den } : { num, den };
};
type SortValue = number | bigint | Ratio | undefined;
const asRatio = (v: number | bigint | Ratio): Ratio => (typeof v === 'object' ? v : { num: BigInt(v), den: 1n });
const cmp = (a: number | bigint | Ratio, b: number | bigint | Ratio): number => {
  const [x, y] = [asRatio(a), asRatio(b)];
  const [l, r] = [x.num * y.den, y.num * x.den];
  return l < r ? -1 : l > r ? 1 : 0;
};

type Level = (f: { campaign: number; adSet: string; creative: string; keyword: string }) => boolean;

export function expectedReport(o: OracleInput, q: OracleQuery) {
  const { s, w } = o;
  const from = q.from ?? '1970-01-01';
  const to = q.to ?? '2149-06-06';
  const inWin = (d: string) => d >= from && d <= to;
  const money = (v: bigint | Ratio | undefined) =>
    v === undefined ? DASH : formatMoney(typeof v === 'bigint' ? dec(v) : v, s.currency);
  const pct = (v: Ratio | undefined) => (v === undefined ? DASH : formatPercent(v));
  const spendCounts = (c: number) => {
    const ls = s.campaigns[c]?.listings ?? [];
    return q.platform === null || (ls.length > 0 && ls.every((l) => l === q.platform));
  };
  const platformOk = (f: OFact) =>
    f.t === 'spend' ? spendCounts(f.campaign) : q.platform === null || f.platform === q.platform;
  const windowFacts = o.facts.filter((f) => inWin(f.day) && platformOk(f));

  function totals(level: Level) {
    const fs = windowFacts.filter(level);
    const n = (p: (f: OFact) => boolean) => fs.filter(p).length;
    const decision = (f: OFact, ...kinds: string[]) => f.t === 'decision' && kinds.includes(f.kind);
    let revenue = 0n;
    let spend = 0n;
    let revenueEvents = 0;
    for (const f of fs) {
      if (f.t === 'event' && f.amount !== null) {
        revenue += nano(f.amount);
        revenueEvents += 1;
      } else if (f.t === 'payment' && f.revenue) {
        revenue += BigInt(f.sign) * nano(f.amount);
        revenueEvents += f.sign;
      } else if (f.t === 'spend') {
        spend += nano(f.amount);
      }
    }
    return {
      clicks: n((f) => f.t === 'click'),
      installs: n((f) => decision(f, 'install')),
      reinstalls: n((f) => decision(f, 'reinstall')),
      reengagements: n((f) => decision(f, 'reengagement')),
      suspicious: n((f) => decision(f, 'install', 'reinstall') && f.t === 'decision' && f.suspicious),
      clickThrough: n((f) => decision(f, 'install', 'reinstall')),
      signups: n((f) => f.t === 'signup'),
      revenueEvents,
      revenue,
      spend,
    };
  }
  type Totals = ReturnType<typeof totals>;
  const conversion = (t: Totals) =>
    div(t.signups, q.view === 'user_acquisition' ? t.installs : t.reinstalls + t.reengagements);
  const roas = (t: Totals) => div(t.revenue, t.spend);
  const costPer = (t: Totals, n: number) => div(t.spend, BigInt(n) * NANO);

  // Campaign list: filters (never dates or platform), then sort values.
  const q2 = q.search?.toLowerCase() ?? null;
  const linkId = q.search === null ? null : linkDisplayId(q.search, w);
  const listed = s.campaigns
    .map((c, i) => ({ c, i, wc: w.campaigns[i] as Written['campaigns'][number] }))
    .filter(({ c, wc }) => {
      if (c.deleted || (q.active !== null && c.active !== q.active)) {
        return false;
      }
      if (q.network !== null && c.network !== q.network) {
        return false;
      }
      if (q.metaAccountId !== null && wc.account?.id !== q.metaAccountId) {
        return false;
      }
      if (q2 === null) {
        return true;
      }
      const base = `https://${wc.domain.name}`;
      const website = c.deeplink?.startsWith('http') ? c.deeplink : '';
      const texts = [
        c.name,
        wc.displayId,
        wc.domain.name,
        c.deeplink ?? '',
        website,
        `${base}/?c=${wc.displayId}`,
        `${base}/${wc.displayId}`,
      ];
      return texts.some((t) => t.toLowerCase().includes(q2)) || wc.displayId === linkId;
    });
  const iosOnly = (i: number) => (s.campaigns[i]?.listings ?? []).join() === 'IOS';
  const rows = listed.map((x) => {
    const t = totals((f) => f.campaign === x.i);
    const hide = iosOnly(x.i);
    const values: Record<string, SortValue> = {
      clicks: t.clicks,
      installs: t.installs,
      signups: hide ? undefined : t.signups,
      revenue: hide ? undefined : t.revenue,
      spend: t.spend,
      created_at: Date.parse(x.wc.createdAt),
      uninstalls: hide ? undefined : 0,
      conversion: hide ? undefined : conversion(t),
      suspicious_installs: hide ? undefined : t.suspicious,
      roas: hide ? undefined : roas(t),
    };
    return { ...x, t, value: values[q.sortField] };
  });
  const sign = q.sortOrder === 'ascending' ? 1 : -1;
  rows.sort((a, b) => {
    if (a.value === undefined || b.value === undefined) {
      if (a.value !== b.value) {
        return a.value === undefined ? 1 : -1;
      }
    } else if (cmp(a.value, b.value) !== 0) {
      return sign * cmp(a.value, b.value);
    }
    return Date.parse(b.wc.createdAt) - Date.parse(a.wc.createdAt) || b.wc.id - a.wc.id;
  });
  const page = rows.slice((q.page - 1) * q.limit, q.page * q.limit);

  // Displayed names: recorded by the project at any time, any campaign.
  const knownEvents = new Set(o.s.events.map((e) => e.name));
  const knownTypes = new Set(o.s.payments.filter((p) => p.status === 'PAYMENT_COMPLETED').map((p) => p.type));
  const shownEvents = q.events === null ? [...knownEvents].sort() : q.events.filter((n) => knownEvents.has(n));
  const shownTypes =
    q.paymentEvents === null ? [...knownTypes].sort() : q.paymentEvents.filter((n) => knownTypes.has(n));
  const unique = new Set(q.unique);

  function cohorts(level: Level) {
    const xs = o.installs.filter(
      (x) => x.campaign >= 0 && level(x) && (q.platform === null || x.platform === q.platform),
    );
    const cohort = (n: number) =>
      xs.filter((x) => x.installDay >= from && x.installDay <= minDay(to, addDays(o.today, -n)));
    const activeOn = (x: OInstall, lo: number, hi: number) =>
      [...x.activeDays].some((d) => dayNum(d) - dayNum(x.installDay) >= lo && dayNum(d) - dayNum(x.installDay) <= hi);
    const share = (n: number, lo: number, hi: number) => {
      const c = cohort(n);
      return div(c.filter((x) => activeOn(x, lo, hi)).length, c.length);
    };
    const daywise = (n: number) => {
      const c = new Set(cohort(n).map((x) => o.installs.indexOf(x)));
      if (c.size === 0) {
        return undefined;
      }
      let sum = 0n;
      for (const f of o.facts) {
        if ((f.t === 'event' || (f.t === 'payment' && f.revenue)) && c.has(f.install)) {
          const x = o.installs[f.install] as OInstall;
          const dn = dayNum(f.day) - dayNum(x.installDay);
          if (dn >= 0 && dn <= n) {
            sum += f.t === 'event' ? (f.amount === null ? 0n : nano(f.amount)) : BigInt(f.sign) * nano(f.amount);
          }
        }
      }
      return sum;
    };
    return {
      retention: { d1: share(1, 1, 30), d7: share(7, 7, 30) },
      classic: { d1: share(1, 1, 1), d7: share(7, 7, 7), d14: share(14, 14, 14), d30: share(30, 30, 30) },
      daywise: { d0: daywise(0), d3: daywise(3), d7: daywise(7), d30: daywise(30) },
    };
  }

  function level(level: Level, hide: boolean, deeplink: number | null) {
    const t = totals(level);
    const fs = windowFacts.filter(level);
    const c = cohorts(level);
    const h = <V>(v: V) => (hide ? DASH : v);
    const custom: Record<string, unknown> = Object.create(null);
    const costCustom: Record<string, unknown> = Object.create(null);
    for (const name of shownEvents) {
      const es = fs.filter((f) => f.t === 'event' && f.name === name) as Extract<OFact, { t: 'event' }>[];
      const amount = es.reduce((a, e) => a + (e.amount === null ? 0n : nano(e.amount)), 0n);
      const users = new Set(es.map((e) => e.user)).size;
      // README: {count, amount} when the event carried amounts in the window (an amount of 0 too).
      const carried = es.some((e) => e.amount !== null);
      const plain = !unique.has(name) && !carried;
      custom[name] = hide
        ? DASH
        : plain
          ? formatCount(es.length)
          : {
              count: formatCount(es.length),
              ...(carried ? { amount: money(amount) } : {}),
              ...(unique.has(name) ? { unique_count: formatCount(users) } : {}),
            };
      if (q.costPer?.includes(name)) {
        costCustom[name] = h(money(costPer(t, es.length)));
      }
    }
    const payments: Record<string, unknown> = Object.create(null);
    const costPayments: Record<string, unknown> = Object.create(null);
    for (const type of shownTypes) {
      const ps = fs.filter((f) => f.t === 'payment' && f.type === type) as Extract<OFact, { t: 'payment' }>[];
      const count = ps.reduce((a, p) => a + p.sign, 0);
      const total = ps.reduce((a, p) => a + BigInt(p.sign) * nano(p.amount), 0n);
      payments[type] = {
        count: formatCount(count),
        total: money(total),
        ...(unique.has(type) ? { unique_count: formatCount(new Set(ps.map((p) => p.user)).size) } : {}),
      };
      if (q.costPer?.includes(type)) {
        costPayments[type] = money(costPer(t, count));
      }
    }
    return {
      t,
      c,
      common: {
        clicks: formatCount(t.clicks),
        installs: formatCount(t.installs),
        'sign-ups': h(formatCount(t.signups)),
        spend: money(t.spend),
        revenue: h(money(t.revenue)),
        conversion: h(pct(conversion(t))),
        revenue_event_count: formatCount(t.revenueEvents),
        roas: h(roas(t) === undefined ? DASH : formatMultiplier(roas(t) as Ratio)),
        cost_per_install: h(money(costPer(t, t.installs))),
        cost_per_signup: h(money(costPer(t, t.signups))),
        custom_events: custom,
        payment_events: payments,
        ...(q.costPer === null ? {} : { cost_per_custom_events: costCustom, cost_per_payment_events: costPayments }),
        ...(deeplink === null ? {} : { deeplink }),
      },
      retention: { d1: h(pct(c.retention.d1)), d7: h(pct(c.retention.d7)) },
      daywise: {
        d0: h(money(c.daywise.d0)),
        d3: h(money(c.daywise.d3)),
        d7: h(money(c.daywise.d7)),
        d30: h(money(c.daywise.d30)),
      },
      suspicious: h(formatCount(t.suspicious)),
    };
  }

  const campaigns = page.map(({ c, i, wc, t }) => {
    const hide = iosOnly(i);
    const h = <V>(v: V) => (hide ? DASH : v);
    const L = level((f) => f.campaign === i, hide, null);
    const inCampaign = windowFacts.filter((f) => f.campaign === i);
    const ids = (pick: (f: OFact) => string, within: (f: OFact) => boolean = () => true) => [
      ...new Set(
        inCampaign
          .filter(within)
          .map(pick)
          .filter((v) => v !== ''),
      ),
    ];
    const named = (_id: string, pickName: (f: OFact) => string, within: (f: OFact) => boolean) =>
      inCampaign
        .filter(within)
        .map(pickName)
        .find((n) => n !== '') ?? '';
    const order = <X extends { id: string; installs: number }>(xs: X[]) =>
      xs.sort((a, b) => b.installs - a.installs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const keyword = (k: string, within: (f: OFact) => boolean) => {
      const kl = level((f) => f.campaign === i && within(f as OFact) && f.keyword === k, hide, null);
      return {
        id: k,
        installs: kl.t.installs,
        row: {
          id: k,
          name: named(
            k,
            (f) => f.names.keyword,
            (f) => within(f) && f.keyword === k,
          ),
          ...kl.common,
          suspicious_installs: kl.suspicious,
          retention: kl.retention,
        },
      };
    };
    const adSets = order(
      ids((f) => f.adSet).map((a) => {
        const al = level((f) => f.campaign === i && f.adSet === a, hide, null);
        const creatives = order(
          ids(
            (f) => f.creative,
            (f) => f.adSet === a,
          ).map((cr) => {
            const cl = level((f) => f.campaign === i && f.adSet === a && f.creative === cr, hide, c.deeplink ? 1 : 0);
            const name = named(
              cr,
              (f) => f.names.creative,
              (f) => f.adSet === a && f.creative === cr,
            );
            return {
              id: cr,
              installs: cl.t.installs,
              row: { id: cr, name, type: '', ...cl.common, retention: cl.retention },
            };
          }),
        );
        const kws = order(
          ids(
            (f) => f.keyword,
            (f) => f.adSet === a,
          ).map((k) => keyword(k, (f) => f.adSet === a)),
        );
        const row = {
          id: a,
          name: named(
            a,
            (f) => f.names.adSet,
            (f) => f.adSet === a,
          ),
          ...al.common,
          suspicious_installs: al.suspicious,
          daywise_revenue: al.daywise,
          ios: c.listings.includes('IOS'),
          android: c.listings.includes('ANDROID'),
          retention: al.retention,
          adCreatives: creatives.map((x) => x.row),
          keywords: kws.map((x) => x.row),
        };
        return { id: a, installs: al.t.installs, row };
      }),
    );
    const keywords = order(ids((f) => f.keyword).map((k) => keyword(k, () => true)));
    const { cost_per_install, ...common } = L.common;
    const activeTo = minDay(to, o.today);
    const activeFrom = addDays(activeTo, 1 - q.activeUsers);
    const activityFrom = addDays(o.today, 1 - q.activeUsers);
    const platformMatch = (p: string) => q.platform === null || p === q.platform;
    const activeUsers = o.installs.filter(
      (x) =>
        x.campaign === i &&
        platformMatch(x.platform) &&
        [...x.activeDays].some((d) => d >= activeFrom && d <= activeTo),
    ).length;
    const activity = o.facts.filter(
      (f) =>
        f.campaign === i &&
        platformMatch(f.platform) &&
        f.day >= activityFrom &&
        f.day <= o.today &&
        (f.t === 'click' || f.t === 'decision'),
    ).length;
    return {
      id: wc.id,
      active: c.active,
      created_at: wc.createdAt,
      display_id: wc.displayId,
      link: `https://${wc.domain.name}/?c=${wc.displayId}`,
      name: c.name,
      ...common,
      ...(q.view === 'user_acquisition'
        ? { cost_per_install }
        : {
            reinstalls: formatCount(t.reinstalls),
            reengagements: formatCount(t.reengagements),
            cost_per_reinstall: money(costPer(t, t.reinstalls)),
          }),
      uninstalls: h('0'),
      suspicious_installs: L.suspicious,
      click_through_attribution: formatCount(t.clickThrough),
      view_through_attribution: '0',
      meta: c.network === 'META',
      meta_web_to_app: false,
      google: c.network === 'GOOGLE',
      google_web_to_app: false,
      tiktok: c.network === 'TIKTOK',
      snapchat: false,
      linkedin: false,
      ...(c.network ? { ad_network_code: c.network } : {}),
      ios: c.listings.includes('IOS'),
      android: c.listings.includes('ANDROID'),
      activity_in_last_x_days: activity,
      has_date_filter: q.from !== null || q.to !== null,
      domain: { id: wc.domain.id, name: wc.domain.name },
      custom_store_listing: wc.listingNames.length === 0 ? null : wc.listingNames.join(', '),
      active_users: h(activeUsers),
      retention: L.retention,
      classic_retention: {
        d1: h(pct(L.c.classic.d1)),
        d7: h(pct(L.c.classic.d7)),
        d14: h(pct(L.c.classic.d14)),
        d30: h(pct(L.c.classic.d30)),
      },
      daywise_revenue: L.daywise,
      network_account: wc.account
        ? { id: wc.account.id, name: wc.account.name, email: '', status: 'ACTIVE', capi_configured: false }
        : null,
      adSets: adSets.map((x) => x.row),
      keywords: keywords.map((x) => x.row),
    };
  });
  return {
    campaigns,
    pagination: { total: rows.length, pages: Math.ceil(rows.length / q.limit), page: q.page, limit: q.limit },
    display_currency: s.currency,
    view: q.view,
  };
}

/** The display id a searched link names, when it is a link of the project (service host or a domain). */
function linkDisplayId(search: string, w: Written): string | null {
  if (!/:\/\/|\?c=|\//.test(search)) {
    return null;
  }
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(search) ? search : `https://${search}`);
  } catch {
    return null;
  }
  const hosts = new Set(['attr.test', ...w.campaigns.map((c) => c.domain.name)]);
  if (!hosts.has(url.host)) {
    return null;
  }
  const segments = url.pathname.split('/').filter(Boolean);
  return url.searchParams.get('c') ?? (segments.length === 1 ? (segments[0] ?? null) : null);
}
