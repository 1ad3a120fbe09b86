// Per-level reads for a report page: custom events, payments, retention and daywise revenue of the
// page's campaigns, at campaign, ad set, creative, keyword and ad set × keyword level. Distinct
// counts (users, active installs) cannot be added up across levels, so each level is its own
// GROUPING SET and grouping() tells them apart. Events and payments first fold their rows to the
// finest level (campaign × ad set × creative × keyword; platforms and days merged: a few hundred
// rows for a page) in a subquery, so the five grouping sets re-aggregate that instead of a year of
// daily rows (bench `reporting`). Bound parameters only; numbers cast in SQL.
import type { ClickHouseClient } from './client.ts';
import { selectRows } from './reporting.ts';

export type Level = 'campaign' | 'ad_set' | 'creative' | 'keyword' | 'ad_set_keyword';

// grouping(ad_set_id, creative_id, keyword_id): a set bit is a column aggregated away.
const LEVEL_OF_MASK: Record<number, Level> = {
  7: 'campaign',
  3: 'ad_set',
  1: 'creative',
  6: 'keyword',
  2: 'ad_set_keyword',
};

const FINEST = 'campaign_id, ad_set_id, creative_id, keyword_id';

const sets = (extra: string) =>
  `GROUPING SETS ((campaign_id${extra}), (campaign_id, ad_set_id${extra}), (campaign_id, ad_set_id, creative_id${extra}),
    (campaign_id, keyword_id${extra}), (campaign_id, ad_set_id, keyword_id${extra}))`;

export type LevelKey = { level: Level; campaignId: number; adSetId: string; creativeId: string; keywordId: string };

type RawKey = {
  lvl: number | string;
  campaign_id: number | string;
  ad_set_id: string;
  creative_id: string;
  keyword_id: string;
};

function keyOf(r: RawKey): LevelKey {
  return {
    level: LEVEL_OF_MASK[Number(r.lvl)] ?? 'campaign',
    campaignId: Number(r.campaign_id),
    adSetId: r.ad_set_id,
    creativeId: r.creative_id,
    keywordId: r.keyword_id,
  };
}

export type PageScope = { projectId: string; from: string; to: string; platform: string; ids: number[] };

const WHERE_PAGE = `project_id = {p:String} AND campaign_id IN {ids:Array(UInt32)}
  AND ({pf:String} = '' OR platform = {pf:String})`;

const pageParams = (s: PageScope) => ({ p: s.projectId, ids: s.ids, pf: s.platform, from: s.from, to: s.to });

// A level row carries its key as a field: spreading keyOf(r) into each row object cost 4-9 µs a row
// on Node 20 (V8 clones it the slow way), 30-40 ms of a 50-campaign page's ~7,000 rows.
// `users` (distinct users) is counted only for the names in `unique` (the request's
// unique_user_events), and is 0 for the others: the report shows it for those names only. Reading
// the users states of every name took a third of the events statement (365-day page of 50
// campaigns: 125 → 90 ms without them; payments 75 → 65 ms).
// `amountEvents` counts the events that carried an amount (0 included; ClickHouse migration 0028).
export type EventLevelRow = {
  key: LevelKey;
  name: string;
  count: number;
  amount: string;
  amountEvents: number;
  users: number;
};

/** The users state of the fold and its merge, or none when no name needs distinct users. */
function usersColumns(unique: string[], nameColumn: string) {
  return unique.length === 0
    ? { inner: '', outer: '' }
    : {
        inner: `, uniqMergeStateIf(users, ${nameColumn} IN {u:Array(String)}) AS u`,
        outer: ', toUInt64(uniqMerge(u)) AS users',
      };
}

export async function selectEventLevels(
  ch: ClickHouseClient,
  s: PageScope,
  names: string[],
  unique: string[],
): Promise<EventLevelRow[]> {
  if (s.ids.length === 0 || names.length === 0) {
    return [];
  }
  const u = names.filter((n) => unique.includes(n));
  const users = usersColumns(u, 'event_name');
  type Raw = RawKey & { name: string; count: string; amount: string; amount_events: string; users?: string };
  const rows = await selectRows<Raw>(
    ch,
    `SELECT campaign_id, ad_set_id, creative_id, keyword_id, grouping(ad_set_id, creative_id, keyword_id) AS lvl,
      event_name AS name, toUInt64(sum(n)) AS count, toString(sum(a)) AS amount,
      toUInt64(sum(ae)) AS amount_events${users.outer}
    FROM (
      SELECT ${FINEST}, event_name, sum(count) AS n, sum(amount) AS a, sum(amount_events) AS ae${users.inner}
      FROM campaign_event_daily
      WHERE ${WHERE_PAGE} AND day BETWEEN {from:Date} AND {to:Date} AND event_name IN {names:Array(String)}
      GROUP BY ${FINEST}, event_name)
    GROUP BY ${sets(', event_name')}`,
    { ...pageParams(s), names, u },
  );
  return rows.map((r) => ({
    key: keyOf(r),
    name: r.name,
    count: Number(r.count),
    amount: r.amount,
    amountEvents: Number(r.amount_events),
    users: Number(r.users ?? 0),
  }));
}

export type PaymentLevelRow = { key: LevelKey; type: string; count: number; total: string; users: number };

/** Payments by type at each level; `users` as for events (counted for the types in `unique` only). */
export async function selectPaymentLevels(
  ch: ClickHouseClient,
  s: PageScope,
  types: string[],
  unique: string[],
): Promise<PaymentLevelRow[]> {
  if (s.ids.length === 0 || types.length === 0) {
    return [];
  }
  const u = types.filter((t) => unique.includes(t));
  const users = usersColumns(u, 'toString(type)');
  const rows = await selectRows<RawKey & { type: string; count: string; total: string; users?: string }>(
    ch,
    `SELECT campaign_id, ad_set_id, creative_id, keyword_id, grouping(ad_set_id, creative_id, keyword_id) AS lvl,
      toString(t) AS type, toInt64(sum(n)) AS count, toString(sum(s)) AS total${users.outer}
    FROM (
      SELECT ${FINEST}, type AS t, sum(count) AS n, sum(total) AS s${users.inner}
      FROM campaign_payment_daily
      WHERE ${WHERE_PAGE} AND day BETWEEN {from:Date} AND {to:Date} AND toString(type) IN {types:Array(String)}
      GROUP BY ${FINEST}, t)
    GROUP BY ${sets(', t')}`,
    { ...pageParams(s), types, u },
  );
  return rows.map((r) => ({
    key: keyOf(r),
    type: r.type,
    count: Number(r.count),
    total: r.total,
    users: Number(r.users ?? 0),
  }));
}

/** The N of each cutoff: install days up to cutoffs[N] count for dN (see domain/reporting/cohorts.ts). */
export type Cutoffs = Record<0 | 1 | 3 | 7 | 14 | 30, string>;

export type RetentionLevelRow = {
  key: LevelKey;
  cohort: Record<0 | 1 | 3 | 7 | 14 | 30, number>;
  rolling: Record<1 | 7, number>;
  classic: Record<1 | 7 | 14 | 30, number>;
};

// Column lists built from these constants only (no request text reaches the SQL).
const COHORT_NS = [0, 1, 3, 7, 14, 30] as const;
const ROLLING_NS = [1, 7] as const;
const CLASSIC_NS = [1, 7, 14, 30] as const;

/**
 * Cohort sizes and returners of each level, in one statement over two sources. The cohort of dN is
 * the level's installs and reinstalls on install days up to cutoffs[N]: campaign_daily's counts of
 * attribution decisions, the row's own installs. Returners are retention_cohort's distinct installs
 * active on day N (classic) or on days N to 30 (rolling). The cohort is not retention_cohort's day 0:
 * an install decided after its install event waited out the fact writer's wait went out organic
 * on day 0 while its later app opens carry the campaign, so returners outnumbered that cohort.
 */
export async function selectRetentionLevels(
  ch: ClickHouseClient,
  s: PageScope,
  cutoffs: Cutoffs,
): Promise<RetentionLevelRow[]> {
  if (s.ids.length === 0) {
    return [];
  }
  const cols = [
    ...COHORT_NS.map((n) => `toUInt64(sumIf(installed, install_day <= {c${n}:Date})) AS cohort_${n}`),
    ...ROLLING_NS.map(
      (n) => `toUInt64(uniqMergeIf(active, day_n >= ${n} AND install_day <= {c${n}:Date})) AS rolling_${n}`,
    ),
    ...CLASSIC_NS.map(
      (n) => `toUInt64(uniqMergeIf(active, day_n = ${n} AND install_day <= {c${n}:Date})) AS classic_${n}`,
    ),
  ].join(',\n      ');
  // Not folded first like the others: eleven conditional states per row cost more than they save (measured).
  // The decisions' side reads only rows holding decisions, with an empty `active` (one type for the
  // union). It cost 20-25 ms more per page than the cohort from day 0 (50 campaigns of 2 M facts).
  const rows = await selectRows<RawKey & Record<string, string>>(
    ch,
    `SELECT campaign_id, ad_set_id, creative_id, keyword_id, grouping(ad_set_id, creative_id, keyword_id) AS lvl,
      ${cols}
    FROM (
      SELECT ${FINEST}, day AS install_day, toUInt16(0) AS day_n, sum(installs) + sum(reinstalls) AS installed,
        uniqStateIf('', false) AS active
      FROM campaign_daily
      WHERE ${WHERE_PAGE} AND day BETWEEN {from:Date} AND {to:Date} AND installs + reinstalls > 0
      GROUP BY ${FINEST}, day
      UNION ALL
      SELECT ${FINEST}, install_day, day_n, toUInt64(0) AS installed, active
      FROM retention_cohort
      WHERE ${WHERE_PAGE} AND install_day BETWEEN {from:Date} AND {to:Date} AND day_n >= 1)
    GROUP BY ${sets('')}`,
    { ...pageParams(s), ...Object.fromEntries(COHORT_NS.map((n) => [`c${n}`, cutoffs[n]])) },
  );
  const num = (r: Record<string, string>, k: string) => Number(r[k] ?? 0);
  return rows.map((r) => ({
    key: keyOf(r),
    cohort: {
      0: num(r, 'cohort_0'),
      1: num(r, 'cohort_1'),
      3: num(r, 'cohort_3'),
      7: num(r, 'cohort_7'),
      14: num(r, 'cohort_14'),
      30: num(r, 'cohort_30'),
    },
    rolling: { 1: num(r, 'rolling_1'), 7: num(r, 'rolling_7') },
    classic: { 1: num(r, 'classic_1'), 7: num(r, 'classic_7'), 14: num(r, 'classic_14'), 30: num(r, 'classic_30') },
  }));
}

export type RevenueCohortRow = {
  campaignId: number;
  adSetId: string;
  creativeId: string;
  keywordId: string;
  revenue: Record<0 | 3 | 7 | 30, string>;
};

const DAYWISE_NS = [0, 3, 7, 30] as const;

/** Cohort revenue on days 0..N after install, at the finest grain (revenue adds up across levels). */
export async function selectRevenueCohorts(
  ch: ClickHouseClient,
  s: PageScope,
  cutoffs: Cutoffs,
): Promise<RevenueCohortRow[]> {
  if (s.ids.length === 0) {
    return [];
  }
  const cols = DAYWISE_NS.map(
    (n) => `toString(sumIf(revenue, day_n <= ${n} AND install_day <= {c${n}:Date})) AS d${n}`,
  ).join(',\n      ');
  const rows = await selectRows<Record<string, string>>(
    ch,
    `SELECT campaign_id, ad_set_id, creative_id, keyword_id,
      ${cols}
    FROM revenue_cohort
    WHERE ${WHERE_PAGE} AND install_day BETWEEN {from:Date} AND {to:Date}
    GROUP BY campaign_id, ad_set_id, creative_id, keyword_id`,
    { ...pageParams(s), ...Object.fromEntries(DAYWISE_NS.map((n) => [`c${n}`, cutoffs[n]])) },
  );
  return rows.map((r) => ({
    campaignId: Number(r.campaign_id),
    adSetId: r.ad_set_id ?? '',
    creativeId: r.creative_id ?? '',
    keywordId: r.keyword_id ?? '',
    revenue: { 0: r.d0 ?? '0', 3: r.d3 ?? '0', 7: r.d7 ?? '0', 30: r.d30 ?? '0' },
  }));
}
