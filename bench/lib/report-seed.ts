// The reporting dataset's facts, generated inside ClickHouse: INSERT … SELECT … FROM numbers(start,
// count) per raw table, in chunks of up to 1 M rows, so the materialized views fill exactly as they
// do when the fact writer inserts (they fire on every insert). Every value is a function of the row
// number and the run seed (cityHash64), never rand(): the same seed gives the same facts, relative
// to the anchor time `endMs` (the run's "now"). An install k has fixed attributes (campaign, platform,
// ad set, creative, keyword, install time); its app opens, sign-ups, events, payments and uninstalls
// come after it, so retention and day-N revenue have data. Campaign ids, display ids, networks and
// platform masks (1 Android only, 2 iOS only, 3 both) are bound parameters.

export type SeedCampaign = { id: number; displayId: string; network: string; platforms: 1 | 2 | 3 };

export type SeedPlan = {
  projectId: string;
  timezone: string;
  seed: number;
  /** The latest fact time (ms); facts spread over `days` days before it. */
  endMs: number;
  days: number;
  facts: number;
  campaigns: SeedCampaign[];
};

export const EVENT_NAMES = ['add_to_cart', 'level_complete', 'purchase', 'tutorial_done', 'share'] as const;
export const PAYMENT_TYPES = ['FIRST_PAYMENT', 'ONE_TIME', 'RECURRING', 'SUBSCRIPTION_RENEWED'] as const;

/** Shares of the facts per raw table (payments' refunds come on top, about 1 in 40 completed ones). */
const SHARES = {
  clicks: 0.35,
  installs: 0.05,
  reinstalls: 0.004,
  reengagements: 0.006,
  app_opens: 0.17,
  signups: 0.025,
  events: 0.28,
  payments: 0.04,
  spend: 0.02,
  uninstalls: 0.005,
} as const;

export type SeedCounts = Record<keyof typeof SHARES, number>;

export function seedCounts(facts: number): SeedCounts {
  const out = {} as SeedCounts;
  for (const [k, share] of Object.entries(SHARES)) {
    out[k as keyof SeedCounts] = Math.max(1, Math.round(facts * share));
  }
  return out;
}

const DAY_MS = 86_400_000;
/** Uniform in [0, 1) from the seed, a tag and a key expression. */
const u = (tag: string, key: string) => `(cityHash64({seed:UInt64}, '${tag}', ${key}) / 18446744073709551616.0)`;
const pickOf = (items: readonly string[], tag: string, key: string) =>
  `[${items.map((s) => `'${s}'`).join(', ')}][1 + toUInt32(${u(tag, key)} * ${items.length})]`;

/**
 * The attributes of an install (or a click) with key `k`: a campaign (skewed: low indexes get more;
 * 1 in 10 organic for installs), its platform, ad set (3 per campaign), creative (2 per ad set) and,
 * for every fourth campaign (search), a keyword (4 per campaign).
 */
function dims(
  k: string,
  organicShare: number,
  ci = `toUInt32(floor(pow(${u('ci', k)}, 2) * length({ids:Array(UInt32)}))) + 1`,
): string {
  return `
    ${ci} AS ci,
    if(${u('org', k)} < ${organicShare}, toUInt32(0), {ids:Array(UInt32)}[ci]) AS campaign_id,
    if(campaign_id = 0, '', {dids:Array(String)}[ci]) AS display_id,
    if(campaign_id = 0, '', {nets:Array(String)}[ci]) AS network,
    multiIf(campaign_id != 0 AND {pfs:Array(UInt8)}[ci] = 1, 'ANDROID', campaign_id != 0 AND {pfs:Array(UInt8)}[ci] = 2, 'IOS',
      ${u('pf', k)} < 0.7, 'ANDROID', 'IOS') AS platform,
    toUInt32(${u('as', k)} * 3) AS as_n,
    toUInt32(${u('cr', k)} * 2) AS cr_n,
    toUInt32(${u('kw', k)} * 4) AS kw_n,
    if(campaign_id = 0, '', concat('as-', toString(campaign_id), '-', toString(as_n))) AS ad_set_id,
    if(campaign_id = 0, '', concat('Ad set ', toString(as_n + 1), ' of ', display_id)) AS ad_set_name,
    if(campaign_id = 0, '', concat('cr-', toString(campaign_id), '-', toString(as_n), '-', toString(cr_n))) AS creative_id,
    if(campaign_id = 0, '', concat('Creative ', toString(cr_n + 1))) AS creative_name,
    if(campaign_id = 0 OR campaign_id % 4 != 0, '', concat('kw-', toString(campaign_id), '-', toString(kw_n))) AS keyword_id,
    if(keyword_id = '', '', concat('keyword ', toString(kw_n + 1))) AS keyword_name`;
}

const tsAt = (ms: string) => `fromUnixTimestamp64Milli(toInt64(least(${ms}, {end:Int64})), 'UTC')`;
const installMs = (k: string) => `({end:Int64} - toInt64(${u('it', k)} * {span:Int64}))`;
/** Days after the install, retention-shaped: most facts in the first days, a tail up to ~60 days. */
const laterMs = (tag: string, n: string) =>
  `toInt64(floor(pow(${u(tag, n)}, 3) * 60) * ${DAY_MS} + ${u(`${tag}ms`, n)} * ${DAY_MS})`;

/** Columns every install-keyed fact shares: the install's attribution and cohort. */
const INSTALL_COLS =
  'campaign_id, display_id, network, ad_set_id, ad_set_name, creative_id, creative_name, keyword_id, keyword_name, install_ts, install_day';

/** A source of install-keyed facts: row n picks install k = hash(n) mod installs and a time after it. */
function installFacts(
  tag: string,
  extra: string,
  k = `cityHash64({seed:UInt64}, '${tag}k', n) % {installs:UInt64}`,
): string {
  return `SELECT number AS n, ${k} AS k,
      ${dims('k', 0.1)},
      ${tsAt(installMs('k'))} AS install_ts,
      toDate(install_ts, {tz:String}) AS install_day,
      ${tsAt(`${installMs('k')} + ${laterMs(tag, 'n')}`)} AS ts,
      toDate(ts, {tz:String}) AS day,
      concat('i-', toString(k)) AS install_instance_id,
      concat('u-', toString(k)) AS user_id${extra}
    FROM numbers({start:UInt64}, {count:UInt64})`;
}

export type SeedStep = { table: string; rows: number; sql: string };

export function seedSteps(c: SeedCounts): SeedStep[] {
  const common = 'project_id, project_tz';
  const pj = '{p:String} AS project_id, {tz:String} AS project_tz';
  const decided = c.installs + c.reinstalls + c.reengagements;
  return [
    {
      table: 'clicks',
      rows: c.clicks,
      sql: `INSERT INTO clicks (click_id, ${common}, campaign_id, display_id, ts, day, ip, user_agent, platform, os,
          network, ad_set_id, ad_set_name, creative_id, creative_name, keyword_id, keyword_name)
        SELECT concat('clk-', toString(n)), ${pj}, campaign_id, display_id, ts, toDate(ts, {tz:String}),
          IPv4NumToString(toUInt32(cityHash64(n) % 4294967295)), 'Mozilla/5.0 (bench)', platform,
          if(platform = 'IOS', 'iOS', 'Android'), network, ad_set_id, ad_set_name, creative_id, creative_name, keyword_id, keyword_name
        FROM (SELECT number AS n, ${dims('n', 0)}, ${tsAt(installMs('n'))} AS ts FROM numbers({start:UInt64}, {count:UInt64}))`,
    },
    {
      // Rows below `installs` are each install's decision; the rest are reinstalls and re-engagements.
      table: 'attributions',
      rows: decided,
      sql: `INSERT INTO attributions (decision_id, ${common}, install_instance_id, kind, ts, install_ts, day, platform,
          attribution_type, method, touch_type, campaign_id, display_id, network, ad_set_id, ad_set_name, creative_id,
          creative_name, keyword_id, keyword_name, ctit_ms, confidence, suspicious, candidates, windows)
        SELECT concat('dec-', toString(n)), ${pj}, concat('i-', toString(k)),
          multiIf(n < {installs:UInt64}, 'install', n < {installs:UInt64} + ${c.reinstalls}, 'reinstall', 'reengagement') AS kind,
          at_ts, at_ts, toDate(at_ts, {tz:String}), platform, if(campaign_id = 0, 'ORGANIC', 'INORGANIC'),
          if(campaign_id = 0, 'organic', 'play_referrer'),
          if(campaign_id = 0, '', if(${u('vt', 'n')} < 0.15, 'view', 'click')), campaign_id, display_id, network,
          ad_set_id, ad_set_name, creative_id, creative_name, keyword_id, keyword_name,
          toInt64(${u('ctit', 'n')} * 3600000), 1, toUInt8(${u('sus', 'n')} < 0.02), '[]', '{}'
        FROM (SELECT number AS n, if(n < {installs:UInt64}, n, cityHash64({seed:UInt64}, 'rk', n) % {installs:UInt64}) AS k,
            ${dims('k', 0.1)},
            ${tsAt(`${installMs('k')} + if(n < {installs:UInt64}, 0, ${laterMs('re', 'n')})`)} AS at_ts
          FROM numbers({start:UInt64}, {count:UInt64}))`,
    },
    {
      // One 'install' row per install, then app opens after it.
      table: 'install_events',
      rows: c.installs + c.app_opens,
      sql: `INSERT INTO install_events (event_id, ${common}, install_instance_id, kind, ts, day, platform, app_version,
          ${INSTALL_COLS})
        SELECT concat('ie-', toString(n)), ${pj}, install_instance_id, if(n < {installs:UInt64}, 'install', 'app_open'),
          if(n < {installs:UInt64}, install_ts, ts) AS t, toDate(t, {tz:String}), platform, '3.12.0', ${INSTALL_COLS}
        FROM (${installFacts('ie', '', `if(n < {installs:UInt64}, n, cityHash64({seed:UInt64}, 'iek', n) % {installs:UInt64})`)})`,
    },
    {
      table: 'signups',
      rows: c.signups,
      sql: `INSERT INTO signups (event_id, ${common}, install_instance_id, user_id, ts, day, platform, is_first_time, ${INSTALL_COLS})
        SELECT concat('su-', toString(n)), ${pj}, install_instance_id, user_id, ts, day, platform, 1, ${INSTALL_COLS}
        FROM (${installFacts('su', '')})`,
    },
    {
      table: 'events',
      rows: c.events,
      sql: `INSERT INTO events (event_id, ${common}, install_instance_id, user_id, event_name, ts, day, platform, amount,
          has_amount, event_data, ${INSTALL_COLS})
        SELECT concat('ev-', toString(n)), ${pj}, install_instance_id, user_id, event_name, ts, day, platform,
          if(event_name = 'purchase', toDecimal128(cityHash64(n, 'amt') % 5000, 9) / 100, toDecimal128(0, 9)),
          toUInt8(event_name = 'purchase'), '{}', ${INSTALL_COLS}
        FROM (${installFacts('ev', `, ${pickOf(EVENT_NAMES, 'en', 'n')} AS event_name`)})`,
    },
    {
      table: 'payments',
      rows: c.payments,
      sql: `INSERT INTO payments (event_id, ${common}, install_instance_id, user_id, payment_id, payment_row, type, status,
          amount, sign, ts, recorded_at, day, platform, ${INSTALL_COLS})
        SELECT concat('pay-', toString(n)), ${pj}, install_instance_id, user_id, concat('pid-', toString(n)),
          concat('pr-', toString(n)), type,
          multiIf(${u('st', 'n')} < 0.92, 'PAYMENT_COMPLETED', ${u('st', 'n')} < 0.97, 'PAYMENT_FAILED', 'PAYMENT_INITIATED'),
          toDecimal128(cityHash64(n, 'pamt') % 10000, 9) / 100, 1, ts, ts, day, platform, ${INSTALL_COLS}
        FROM (${installFacts('pay', `, ${pickOf(PAYMENT_TYPES, 'pt', 'n')} AS type`)})`,
    },
    {
      table: 'spend',
      rows: c.spend,
      sql: `INSERT INTO spend (event_id, project_id, day, campaign_id, display_id, ad_set_id, ad_set_name, creative_id,
          creative_name, keyword_id, keyword_name, network, platform, amount, impressions, clicks, sign, recorded_at)
        SELECT concat('sp-', toString(n)), {p:String}, toDate(fromUnixTimestamp64Milli({end:Int64}, 'UTC'), {tz:String})
            - toUInt32(intDiv(n, length({ids:Array(UInt32)})) % {days:UInt32}),
          campaign_id, display_id, ad_set_id, ad_set_name, creative_id, creative_name, keyword_id, keyword_name, network, '',
          toDecimal128(cityHash64(n, 'samt') % 20000, 9) / 100, toInt64(cityHash64(n, 'imp') % 50000), toInt64(cityHash64(n, 'nc') % 900),
          1, fromUnixTimestamp64Milli({end:Int64}, 'UTC')
        FROM (SELECT number AS n, ${dims('n', 0, '(n % length({ids:Array(UInt32)})) + 1')}
          FROM numbers({start:UInt64}, {count:UInt64}))`,
    },
    {
      table: 'uninstalls',
      rows: c.uninstalls,
      sql: `INSERT INTO uninstalls (event_id, ${common}, install_instance_id, ts, day, platform, provider, failed_days, ${INSTALL_COLS})
        SELECT concat('un-', toString(n)), ${pj}, install_instance_id, ts, day, platform, if(platform = 'IOS', 'APNS', 'FCM'), 3,
          ${INSTALL_COLS}
        FROM (${installFacts('un', '')})`,
    },
  ];
}

/**
 * Refunds: a removal row (sign -1, same time and attribution) for about 1 in 40 completed payments.
 * The filter sits in a subquery: REPLACE's aliases (sign, event_id) would shadow the columns in WHERE.
 */
export const REFUNDS_SQL = `INSERT INTO payments
  SELECT * REPLACE (concat(event_id, '-r') AS event_id, toInt8(-1) AS sign,
    fromUnixTimestamp64Milli(least(toUnixTimestamp64Milli(ts) + ${DAY_MS}, {end:Int64}), 'UTC') AS recorded_at)
  FROM (SELECT * FROM payments
    WHERE project_id = {p:String} AND sign = 1 AND status = 'PAYMENT_COMPLETED' AND cityHash64(event_id, 'refund') % 40 = 0)`;

export function seedParams(plan: SeedPlan, c: SeedCounts): Record<string, unknown> {
  return {
    p: plan.projectId,
    tz: plan.timezone,
    seed: plan.seed,
    end: plan.endMs,
    span: plan.days * DAY_MS,
    days: plan.days,
    installs: c.installs,
    ids: plan.campaigns.map((x) => x.id),
    dids: plan.campaigns.map((x) => x.displayId),
    nets: plan.campaigns.map((x) => x.network),
    pfs: plan.campaigns.map((x) => x.platforms),
  };
}
