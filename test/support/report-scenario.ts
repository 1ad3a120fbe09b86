// A seeded reporting scenario for one project: campaigns (with ad sets, creatives, keywords, store
// listings, networks, an inactive and a deleted one), clicks, installs (attributed by Play referrer
// on Android and by advertising id on iOS, a few suspicious, reinstalls of a device seen before,
// organic ones), app opens over 35 days, re-engagements, sign-ups, custom events (prototype names
// included, some with amounts), payments (completed, failed, removed later; withdrawals and refunded
// subscriptions among the types) and spend with restatements. Pure data: report-writer.ts sends it
// through the real write paths and report-oracle.ts computes every reported number from it by brute
// force.
export type Rng = () => number;

/** mulberry32: small, fast, good enough for test data, identical on every machine. */
export function seeded(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
export const int = (r: Rng, min: number, max: number): number => min + Math.floor(r() * (max - min + 1));

export type Platform = 'ANDROID' | 'IOS';
export type Named = { id: string; name: string };
export type AdSet = Named & { creatives: Named[]; keywords: Named[] };

export type SCampaign = {
  name: string;
  network: string | null;
  listings: Platform[];
  active: boolean;
  ownDomain: boolean;
  deeplink: string | null;
  withAccount: boolean;
  deleted: boolean;
  adSets: AdSet[];
};

export type Keys = { adSet: Named | null; creative: Named | null; keyword: Named | null };
export type SClick = Keys & { campaign: number; platform: Platform; ts: number; ip: string; idfa: string | null };
export type SInstall = {
  iid: string;
  platform: Platform;
  deviceId: string;
  ts: number;
  /** The click it is attributed to (index into clicks), null for organic. */
  click: number | null;
  ip: string;
};
export type SOpen = { install: number; ts: number };
export type SReengagement = { install: number; campaign: number; ts: number };
export type SSignup = { install: number; userId: string; ts: number };
export type SEvent = { install: number; userId: string; name: string; amount: string | null; ts: number };
export type SPayment = {
  install: number;
  userId: string;
  paymentId: string;
  amount: string;
  type: string;
  status: string;
  ts: number;
  removedTs: number | null;
};
export type SSpend = Keys & { campaign: number; day: string; amounts: string[] };

export type Scenario = {
  timezone: string;
  currency: string;
  campaigns: SCampaign[];
  clicks: SClick[];
  installs: SInstall[];
  opens: SOpen[];
  reengagements: SReengagement[];
  signups: SSignup[];
  events: SEvent[];
  payments: SPayment[];
  spends: SSpend[];
};

export const EVENT_NAMES = ['__proto__', 'constructor', 'toString', 'level_up', 'purchase', 'tutorial done'];
// Withdrawals and refunded subscriptions sent as completed: payment_events lists them, revenue not.
export const PAYMENT_TYPES = [
  'DEFAULT',
  'FIRST_PAYMENT',
  'SUBSCRIPTION_RENEWED',
  'FUNDS_WITHDRAWAL',
  'SUBSCRIPTION_REFUNDED',
];
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const hex = (r: Rng, n: number) => Array.from({ length: n }, () => pick(r, [...'0123456789abcdef'])).join('');
const uuid = (r: Rng) => `${hex(r, 8)}-${hex(r, 4)}-4${hex(r, 3)}-a${hex(r, 3)}-${hex(r, 12)}`;
const money = (r: Rng, max: number) => `${int(r, 0, max)}.${String(int(r, 0, 99)).padStart(2, '0')}`;

function adSets(r: Rng, prefix: string, keywords: boolean): AdSet[] {
  return [1, 2].map((i) => ({
    id: `${prefix}as${i}`,
    name: `${prefix} set ${i}`,
    creatives: [1, 2].map((j) => ({ id: `${prefix}cr${i}${j}`, name: `${prefix} creative ${i}.${j}` })),
    keywords: keywords || r() < 0.3 ? [{ id: `${prefix}kw${i}`, name: `${prefix} keyword ${i}` }] : [],
  }));
}

function campaigns(r: Rng, tag: string): SCampaign[] {
  const c = (name: string, network: string | null, listings: Platform[], extra: Partial<SCampaign> = {}) => ({
    name: `${name} ${tag}`,
    network,
    listings,
    active: true,
    ownDomain: false,
    deeplink: null,
    withAccount: false,
    deleted: false,
    adSets: adSets(r, `${name.slice(0, 2).toLowerCase()}${tag}`, network === 'APPLE_SEARCH_ADS'),
    ...extra,
  });
  return [
    c('Alpha Meta', 'META', ['ANDROID', 'IOS'], { withAccount: true, deeplink: 'https://shop.example.com/alpha' }),
    c('beta_tiktok 50%', 'TIKTOK', ['ANDROID'], { ownDomain: true }),
    c('Gamma iOS', 'APPLE_SEARCH_ADS', ['IOS']),
    c('Delta Google', 'GOOGLE', ['ANDROID', 'IOS'], { active: false }),
    c('Epsilon', null, []),
    c('Zeta deleted', 'META', ['ANDROID'], { deleted: true }),
  ];
}

function keysOf(r: Rng, c: SCampaign): Keys {
  if (r() < 0.2) {
    return { adSet: null, creative: null, keyword: null };
  }
  const adSet = pick(r, c.adSets);
  return {
    adSet: { id: adSet.id, name: adSet.name },
    creative: r() < 0.8 ? pick(r, adSet.creatives) : null,
    keyword: adSet.keywords.length > 0 && r() < 0.7 ? pick(r, adSet.keywords) : null,
  };
}

/** A scenario whose facts fall in the 40 days before `nowMs` (clicks, installs …) and spend days. */
export function generateScenario(
  seed: number,
  nowMs: number,
  opts: { timezone: string; currency: string; tag: string },
) {
  const r = seeded(seed);
  let ipSeq = 0;
  const ip = () => `10.${(seed % 200) + 20}.${Math.floor(++ipSeq / 250)}.${(ipSeq % 250) + 1}`;
  const s: Scenario = {
    timezone: opts.timezone,
    currency: opts.currency,
    campaigns: campaigns(r, opts.tag),
    clicks: [],
    installs: [],
    opens: [],
    reengagements: [],
    signups: [],
    events: [],
    payments: [],
    spends: [],
  };
  const start = nowMs - 40 * DAY;
  const before = (ts: number) => ts < nowMs - 10 * 60_000;
  s.campaigns.forEach((c, ci) => {
    if (c.listings.length === 0) {
      return; // a campaign without facts (and no store to send a click to)
    }
    for (let i = 0; i < 22; i++) {
      const platform = pick(r, c.listings);
      s.clicks.push({
        campaign: ci,
        ...keysOf(r, c),
        platform,
        ts: start + Math.floor(r() * 39 * DAY),
        ip: ip(),
        idfa: platform === 'IOS' ? uuid(r) : null,
      });
    }
  });
  s.clicks.forEach((click, k) => {
    if (r() < 0.45) {
      const delay = r() < 0.1 ? 5_000 : int(r, 60_000, 36 * HOUR);
      const ts = click.ts + delay;
      if (before(ts)) {
        s.installs.push({
          iid: uuid(r),
          platform: click.platform,
          deviceId: click.idfa ?? uuid(r),
          ts,
          click: k,
          ip: ip(),
        });
      }
    }
  });
  addReinstalls(r, s, ip, nowMs);
  for (let i = 0; i < 6; i++) {
    s.installs.push({
      iid: uuid(r),
      platform: pick(r, ['ANDROID', 'IOS'] as const),
      deviceId: uuid(r),
      ts: start + Math.floor(r() * 39 * DAY),
      click: null,
      ip: ip(),
    });
  }
  s.installs.sort((a, b) => a.ts - b.ts);
  addActivity(r, s, before);
  addSpend(r, s, nowMs);
  return s;
}

/** Devices that install again later from a new click of the same campaign: kind reinstall. */
function addReinstalls(r: Rng, s: Scenario, ip: () => string, nowMs: number) {
  const firsts = s.installs.filter((x) => x.click !== null).slice(0, 3);
  for (const first of firsts) {
    const old = s.clicks[first.click as number] as SClick;
    const ts = first.ts + int(r, 2, 6) * DAY;
    if (ts >= nowMs - HOUR) {
      continue;
    }
    const c = s.campaigns[old.campaign] as SCampaign;
    const click: SClick = { ...old, ...keysOf(r, c), ts: ts - 2 * HOUR, ip: ip() };
    s.clicks.push(click);
    s.installs.push({
      iid: uuid(r),
      platform: first.platform,
      deviceId: first.deviceId,
      ts,
      click: s.clicks.length - 1,
      ip: ip(),
    });
  }
}

function addActivity(r: Rng, s: Scenario, before: (ts: number) => boolean) {
  let user = 0;
  let pay = 0;
  s.installs.forEach((x, i) => {
    for (let k = int(r, 0, 4); k > 0; k--) {
      const ts = x.ts + pick(r, [1, 1, 2, 3, 7, 7, 14, 30, int(r, 1, 35)]) * DAY + int(r, -6, 6) * HOUR;
      if (before(ts)) {
        s.opens.push({ install: i, ts });
      }
    }
    if (x.click !== null && r() < 0.12) {
      const ts = x.ts + int(r, 1, 10) * DAY;
      if (before(ts)) {
        s.reengagements.push({ install: i, campaign: int(r, 0, 3), ts });
      }
    }
    if (r() > 0.65) {
      return;
    }
    const userId = `user-${++user}`;
    const signupTs = x.ts + (r() < 0.5 ? int(r, 60_000, HOUR) : int(r, 60_000, 3 * DAY));
    if (!before(signupTs)) {
      return;
    }
    s.signups.push({ install: i, userId, ts: signupTs });
    for (let k = int(r, 0, 4); k > 0; k--) {
      const ts = signupTs + (r() < 0.3 ? int(r, 60_000, 3 * HOUR) : int(r, 60_000, 20 * DAY));
      const name = pick(r, EVENT_NAMES);
      const amount = name === 'purchase' || r() < 0.15 ? money(r, 80) : null;
      if (before(ts)) {
        s.events.push({ install: i, userId, name, amount, ts });
      }
    }
    for (let k = int(r, 0, 3); k > 0; k--) {
      const ts = signupTs + (r() < 0.3 ? int(r, 60_000, 3 * HOUR) : int(r, 60_000, 25 * DAY));
      const status = r() < 0.85 ? 'PAYMENT_COMPLETED' : pick(r, ['PAYMENT_FAILED', 'PAYMENT_INITIATED']);
      const removedTs = r() < 0.2 ? ts + int(r, 60_000, 5 * DAY) : null;
      if (before(ts)) {
        s.payments.push({
          install: i,
          userId,
          paymentId: `pay-${++pay}`,
          amount: money(r, 500),
          type: pick(r, PAYMENT_TYPES),
          status,
          ts,
          removedTs: removedTs !== null && before(removedTs) ? removedTs : null,
        });
      }
    }
  });
}

function addSpend(r: Rng, s: Scenario, nowMs: number) {
  const seen = new Set<string>();
  s.campaigns.forEach((c, ci) => {
    for (let i = 0; i < 10; i++) {
      const day = new Date(nowMs - int(r, 1, 40) * DAY).toISOString().slice(0, 10);
      const keys = keysOf(r, c);
      const key = JSON.stringify([day, ci, keys.adSet?.id, keys.creative?.id, keys.keyword?.id]);
      if (seen.has(key)) {
        continue;
      }
      seen.add(key);
      const amounts = [money(r, 300)];
      if (r() < 0.35) {
        amounts.push(r() < 0.2 ? (amounts[0] as string) : money(r, 300));
      }
      s.spends.push({ campaign: ci, day, ...keys, amounts });
    }
  });
}
