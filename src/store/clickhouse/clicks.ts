// Click lookups for install matching: by our click id or an advertising id (clicks_by_key), and
// by source IP (clicks_by_ip), each joined back to the click's details. LIMIT 1 BY click_id keeps
// one row per click even before merges.
import type { Click } from '../../domain/attribution/types.ts';
import type { ClickHouseClient } from './client.ts';

type ClickRow = {
  click_id: string;
  ts: string;
  campaign_id: number;
  display_id: string;
  platform: string;
  ip: string;
  os: string;
  os_version: string;
  device_model: string;
  network: string;
  ad_set_id: string;
  ad_set_name: string;
  creative_id: string;
  creative_name: string;
  keyword_id: string;
  keyword_name: string;
  gclid: string;
  gbraid: string;
  utm_source: string;
  link_params: string;
};

const toClick = (r: ClickRow): Click => ({
  clickId: r.click_id,
  ts: Number(r.ts),
  campaignId: Number(r.campaign_id),
  displayId: r.display_id,
  platform: r.platform,
  ip: r.ip,
  os: r.os,
  osVersion: r.os_version,
  deviceModel: r.device_model,
  network: r.network,
  adSetId: r.ad_set_id,
  adSetName: r.ad_set_name,
  creativeId: r.creative_id,
  creativeName: r.creative_name,
  keywordId: r.keyword_id,
  keywordName: r.keyword_name,
  gclid: r.gclid,
  gbraid: r.gbraid,
  utmSource: r.utm_source,
  linkParams: r.link_params,
});

const DETAILS = `SELECT click_id, toString(toUnixTimestamp64Milli(ts)) AS ts, campaign_id, display_id, platform, ip, os,
  os_version, device_model, network, ad_set_id, ad_set_name, creative_id, creative_name, keyword_id, keyword_name,
  gclid, gbraid, utm_source, link_params, ad_id FROM clicks WHERE project_id = {p:String}`;

/** Clicks kept per lookup at or before the install, and after it (those only noted, never winning). */
const MAX_CANDIDATES = 200;
const MAX_AFTER_INSTALL = 10;

// The candidate lookups take the newest clicks of the key or IP from the table kept in that order,
// then read their details from `clicks` by its whole sorting key (campaign_id, toDate(ts), click_id).
// Matching on (campaign_id, click_id) alone read every click of those campaigns: an IP behind which
// many clicks arrive (a carrier NAT, or the bench's loopback) cost ~150 ms of engine time per
// install for 200k clicks, ~30 ms this way. `clicks.ts` is the column: DETAILS makes `ts` a string alias.

/**
 * One lookup of a batch: a match key ('c:<click id>' or 'a:<ad id>') or an IP, and its window, which
 * holds the install's instant `atMs` (toMs when not given: every click of the window counts as before).
 */
export type ClickLookup = { value: string; fromMs: number; atMs?: number; toMs: number };

type Source =
  | { table: 'clicks_by_key'; column: 'match_key'; clickId: string }
  | { table: 'clicks_by_ip'; column: 'ip'; clickId: string };
// Since ClickHouse migration 0022 a `c:<click id>` row of clicks_by_key leaves click_id empty (the id
// is its match key after `c:`); rows written before keep it, and `a:` rows always carry it.
const BY_KEY: Source = {
  table: 'clicks_by_key',
  column: 'match_key',
  clickId: `if(s.click_id = '', substring(s.match_key, 3), s.click_id)`,
};
const BY_IP: Source = { table: 'clicks_by_ip', column: 'ip', clickId: 's.click_id' };

// The lookups travel as arrays, one span per value (see lookupSpans): the inner query joins each
// span's rows to its window and keeps, per segment between the span's install instants (`at`,
// ascending), the newest MAX_CANDIDATES, and after the last instant the newest MAX_AFTER_INSTALL.
// The newest 200 clicks at or before any one install then lie in its own segment and the ones
// below it, each of which kept its newest 200, so the answer holds what each lookup alone would
// read; and clicks after an install (which can never win) no longer use up its 200. A batch of
// installs costs two statements, not three each, and many installs behind one IP do not multiply
// that IP's clicks in the join. The bound on s.ts (the earliest window's start) lets the engine skip
// the weeks no window reaches (both tables are partitioned by week since ClickHouse migration 0023).
function lookupQuery(src: Source): string {
  return `${DETAILS} AND (campaign_id, toDate(clicks.ts), click_id) IN (
       SELECT cmp, day, cid FROM (
         SELECT s.campaign_id AS cmp, toDate(s.ts) AS day, ${src.clickId} AS cid,
           arrayCount(x -> x < toUnixTimestamp64Milli(s.ts), l.at) AS seg, length(l.at) AS segs,
           row_number() OVER (PARTITION BY l.i, seg ORDER BY s.ts DESC) AS n
         FROM ${src.table} AS s
         INNER JOIN (
           SELECT i, {v:Array(String)}[i] AS v, {lo:Array(Int64)}[i] AS lo, {hi:Array(Int64)}[i] AS hi,
             {at:Array(Array(Int64))}[i] AS at
           FROM (SELECT arrayJoin(range(1, length({v:Array(String)}) + 1)) AS i)) AS l ON s.${src.column} = l.v
         WHERE s.project_id = {p:String} AND s.${src.column} IN {v:Array(String)}
           AND s.ts >= fromUnixTimestamp64Milli(arrayMin({lo:Array(Int64)}), 'UTC')
           AND toUnixTimestamp64Milli(s.ts) BETWEEN l.lo AND l.hi)
       WHERE n <= if(seg = segs, ${MAX_AFTER_INSTALL}, ${MAX_CANDIDATES}))
     ORDER BY ts DESC LIMIT 1 BY click_id`;
}

type Span = { value: string; fromMs: number; toMs: number; at: number[] };

/**
 * The spans to ask for: the lookups of one value become one span, from the earliest start to the
 * latest end (clipped to now: no click is newer), cut at each lookup's install instant.
 */
function lookupSpans(lookups: ClickLookup[], nowMs: number): Span[] {
  const spans = new Map<string, Span>();
  for (const l of lookups) {
    const toMs = Math.min(l.toMs, nowMs);
    const at = Math.min(l.atMs ?? toMs, toMs);
    const span = spans.get(l.value);
    if (span) {
      span.fromMs = Math.min(span.fromMs, l.fromMs);
      span.toMs = Math.max(span.toMs, toMs);
      span.at.push(at);
    } else {
      spans.set(l.value, { value: l.value, fromMs: l.fromMs, toMs, at: [at] });
    }
  }
  return [...spans.values()].map((s) => ({ ...s, at: [...new Set(s.at)].sort((a, b) => a - b) }));
}

/** A lookup's clicks from the span's (newest first): its newest 200 up to the install, a few after. */
function ownClicks(l: ClickLookup, all: Click[]): Click[] {
  const at = l.atMs ?? l.toMs;
  const inWindow = all.filter((c) => c.ts >= l.fromMs && c.ts <= l.toMs);
  return [
    ...inWindow.filter((c) => c.ts > at).slice(0, MAX_AFTER_INSTALL),
    ...inWindow.filter((c) => c.ts <= at).slice(0, MAX_CANDIDATES),
  ];
}

async function lookup(
  ch: ClickHouseClient,
  src: Source,
  projectId: string,
  lookups: ClickLookup[],
): Promise<Click[][]> {
  if (lookups.length === 0) {
    return [];
  }
  const spans = lookupSpans(lookups, Date.now());
  const rs = await ch.query({
    query: lookupQuery(src),
    format: 'JSONEachRow',
    query_params: {
      p: projectId,
      v: spans.map((l) => l.value),
      lo: spans.map((l) => l.fromMs),
      hi: spans.map((l) => l.toMs),
      at: spans.map((l) => l.at),
    },
  });
  const byValue = new Map<string, Click[]>();
  for (const r of await rs.json<ClickRow & { ad_id: string }>()) {
    const click = toClick(r);
    // Which lookups the click answers: its IP, or its match keys (as clicks_by_key derives them).
    const values = src === BY_IP ? [r.ip] : r.ad_id ? [`c:${r.click_id}`, `a:${r.ad_id}`] : [`c:${r.click_id}`];
    for (const v of values) {
      const list = byValue.get(v);
      list ? list.push(click) : byValue.set(v, [click]);
    }
  }
  // Rows come newest first; each lookup keeps those inside its own window, capped as the query is.
  return lookups.map((l) => ownClicks(l, byValue.get(l.value) ?? []));
}

/** For each lookup by match key, its clicks in its window, newest first (one statement). */
export function findClicksByKeys(ch: ClickHouseClient, projectId: string, lookups: ClickLookup[]): Promise<Click[][]> {
  return lookup(ch, BY_KEY, projectId, lookups);
}

/** For each lookup by IP, its clicks in its window, newest first (one statement). */
export function findClicksByIps(ch: ClickHouseClient, projectId: string, lookups: ClickLookup[]): Promise<Click[][]> {
  return lookup(ch, BY_IP, projectId, lookups);
}
