// The drill-down of a report page (its campaigns only): ad sets → creatives and keywords, custom
// events, payments, retention and daywise revenue at each level. An ad set, creative or keyword is
// listed when campaign_daily has a row for it in the window on the asked platform (or a spend row
// without a platform, where such spend counts); nested lists are ordered by installs, then id.
// Money is added up in nano-units (bigint) and written back as text once per node: adding the
// decimal strings themselves (parse both, format the sum) for every row and level took 40-185 ms
// of a 365-day page of 50 campaigns (bench `reporting`, 2026-11-26).
import type { Deps } from '../../deps.ts';
import {
  type Cutoffs,
  type Level,
  type LevelKey,
  type PageScope,
  selectEventLevels,
  selectPaymentLevels,
  selectRetentionLevels,
  selectRevenueCohorts,
} from '../../store/clickhouse/report-levels.ts';
import { type CounterRow, selectCampaignBreakdown } from '../../store/clickhouse/reporting.ts';
import { DAYWISE_REVENUE_DAYS, zeroCohortCounts, zeroDaywise } from './cohorts.ts';
import { fromNano, toNano } from './decimal.ts';
import { addCounters, type Totals, zeroTotals } from './metrics.ts';
import type { AdSetReport, LevelStats, NamedLevel } from './report-types.ts';

type DaywiseDay = (typeof DAYWISE_REVENUE_DAYS)[number];
/** A node's money while rows are added: nano-units, written into totals and daywise by finish(). */
type Sums = { revenue: bigint; spend: bigint; daywise: Record<DaywiseDay, bigint> };
type Node = NamedLevel & { level: Level; campaignId: number; adSetId: string; sums: Sums };

// Ids are any text, so each is length-prefixed: no two keys can run together (JSON.stringify of
// the five, as before, cost ~1 µs a call over a page's ~8,000 lookups).
const key = (level: Level, c: number, a: string, cr: string, k: string) =>
  `${level}|${c}|${a.length}:${a}|${cr.length}:${cr}|${k.length}:${k}`;

function emptyNode(level: Level, campaignId: number, adSetId: string, id: string, name: string): Node {
  return {
    level,
    campaignId,
    adSetId,
    id,
    name,
    totals: zeroTotals(),
    events: new Map(),
    payments: new Map(),
    cohorts: zeroCohortCounts(),
    daywise: zeroDaywise(),
    sums: { revenue: 0n, spend: 0n, daywise: { 0: 0n, 3: 0n, 7: 0n, 30: 0n } },
  };
}

/** Writes a node's money sums as decimal text (the counters are already in place). */
function finish(node: Node): void {
  node.totals.revenue = fromNano(node.sums.revenue);
  node.totals.spend = fromNano(node.sums.spend);
  for (const n of DAYWISE_REVENUE_DAYS) {
    node.daywise[n] = fromNano(node.sums.daywise[n]);
  }
}

/** The level keys a finest-grain row adds into (ids that are '' form no level). */
function levelsOf(r: { campaignId: number; adSetId: string; creativeId: string; keywordId: string }) {
  const out: { level: Level; k: string; adSetId: string; id: string }[] = [];
  const c = r.campaignId;
  if (r.adSetId) {
    out.push({ level: 'ad_set', k: key('ad_set', c, r.adSetId, '', ''), adSetId: r.adSetId, id: r.adSetId });
    if (r.creativeId) {
      const k = key('creative', c, r.adSetId, r.creativeId, '');
      out.push({ level: 'creative', k, adSetId: r.adSetId, id: r.creativeId });
    }
    if (r.keywordId) {
      const k = key('ad_set_keyword', c, r.adSetId, '', r.keywordId);
      out.push({ level: 'ad_set_keyword', k, adSetId: r.adSetId, id: r.keywordId });
    }
  }
  if (r.keywordId) {
    out.push({ level: 'keyword', k: key('keyword', c, '', '', r.keywordId), adSetId: '', id: r.keywordId });
  }
  return out;
}

export type PageDetails = {
  /** Each page campaign's totals (the sum of its breakdown rows), events, payments, retention, revenue. */
  campaign: Map<number, LevelStats>;
  adSets: Map<number, AdSetReport[]>;
  keywords: Map<number, NamedLevel[]>;
};

export type PageDetailsInput = {
  scope: PageScope;
  cutoffs: Cutoffs;
  eventNames: string[];
  paymentTypes: string[];
  /** unique_user_events: the names whose distinct users are counted (the others' stay 0, unshown). */
  uniqueNames: string[];
  /** The totals of a counter row, spend included per the platform rule (campaign-report.ts). */
  totalsOf: (r: CounterRow) => Totals;
  /** Whether the row is on the asked platform (or is spend that counts there). */
  visible: (r: CounterRow) => boolean;
};

const byInstallsThenId = (a: NamedLevel, b: NamedLevel) =>
  b.totals.installs - a.totals.installs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export async function loadPageDetails(deps: Pick<Deps, 'ch'>, q: PageDetailsInput): Promise<PageDetails> {
  // The five reads are independent: asked together, a ClickHouse server runs them in parallel, and
  // the embedded engine (one statement at a time) starts the next while this process reads a result.
  const [breakdown, eventLevels, paymentLevels, retention, revenue] = await Promise.all([
    selectCampaignBreakdown(deps.ch, q.scope, q.scope.ids),
    selectEventLevels(deps.ch, q.scope, q.eventNames, q.uniqueNames),
    selectPaymentLevels(deps.ch, q.scope, q.paymentTypes, q.uniqueNames),
    selectRetentionLevels(deps.ch, q.scope, q.cutoffs),
    selectRevenueCohorts(deps.ch, q.scope, q.cutoffs),
  ]);
  const nodes = new Map<string, Node>();
  const campaign = new Map<number, Node>(q.scope.ids.map((id) => [id, emptyNode('campaign', id, '', '', '')]));
  for (const r of breakdown) {
    const t = q.totalsOf(r);
    const [revenue, spend] = [toNano(t.revenue), toNano(t.spend)];
    // Every row adds into its campaign's totals (a row of another platform adds zeros); only
    // visible rows make ad sets, creatives and keywords.
    const c = campaign.get(r.campaignId);
    if (c) {
      addCounters(c.totals, t);
      c.sums.revenue += revenue;
      c.sums.spend += spend;
    }
    if (!q.visible(r)) {
      continue;
    }
    for (const l of levelsOf(r)) {
      const name = l.level === 'ad_set' ? r.adSetName : l.level === 'creative' ? r.creativeName : r.keywordName;
      const node = nodes.get(l.k) ?? emptyNode(l.level, r.campaignId, l.adSetId, l.id, name);
      addCounters(node.totals, t);
      node.sums.revenue += revenue;
      node.sums.spend += spend;
      node.name ||= name;
      nodes.set(l.k, node);
    }
  }
  const find = (r: LevelKey) =>
    r.level === 'campaign'
      ? campaign.get(r.campaignId)
      : nodes.get(key(r.level, r.campaignId, r.adSetId, r.creativeId, r.keywordId));
  for (const r of eventLevels) {
    find(r.key)?.events.set(r.name, { count: r.count, amount: r.amount, amountEvents: r.amountEvents, users: r.users });
  }
  for (const r of paymentLevels) {
    find(r.key)?.payments.set(r.type, { count: r.count, total: r.total, users: r.users });
  }
  for (const r of retention) {
    const node = find(r.key);
    if (node) {
      node.cohorts = { cohort: r.cohort, rolling: r.rolling, classic: r.classic };
    }
  }
  for (const r of revenue) {
    const days = DAYWISE_REVENUE_DAYS.map((n) => [n, toNano(r.revenue[n])] as const);
    const targets = [campaign.get(r.campaignId), ...levelsOf(r).map((l) => nodes.get(l.k))];
    for (const node of targets) {
      if (node) {
        for (const [n, v] of days) {
          node.sums.daywise[n] += v;
        }
      }
    }
  }
  for (const node of [...campaign.values(), ...nodes.values()]) {
    finish(node);
  }
  return assemble(campaign, [...nodes.values()]);
}

function assemble(campaign: Map<number, Node>, nodes: Node[]): PageDetails {
  // Nodes grouped once by level, campaign and (for creatives and ad set keywords) ad set; each
  // group sorted once. Filtering every node per campaign and level was quadratic in the page.
  const groups = new Map<string, Node[]>();
  const groupKey = (level: Level, c: number, adSetId = '') => `${level}\n${c}\n${adSetId}`;
  for (const n of nodes) {
    const k = groupKey(n.level, n.campaignId, n.level === 'creative' || n.level === 'ad_set_keyword' ? n.adSetId : '');
    const list = groups.get(k);
    list ? list.push(n) : groups.set(k, [n]);
  }
  for (const list of groups.values()) {
    list.sort(byInstallsThenId);
  }
  const of = (level: Level, c: number, adSetId?: string) => groups.get(groupKey(level, c, adSetId)) ?? [];
  const adSets = new Map<number, AdSetReport[]>();
  const keywords = new Map<number, NamedLevel[]>();
  for (const c of campaign.keys()) {
    adSets.set(
      c,
      of('ad_set', c).map((a) => ({
        ...a,
        creatives: of('creative', c, a.id),
        keywords: of('ad_set_keyword', c, a.id),
      })),
    );
    keywords.set(c, of('keyword', c));
  }
  return { campaign, adSets, keywords };
}
