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

const MAX_CANDIDATES = 200;

// The candidate lookups take the newest MAX_CANDIDATES clicks of the key or IP from the table kept
// in that order, then read their details from `clicks` by its whole sorting key
// (campaign_id, toDate(ts), click_id). Matching on (campaign_id, click_id) alone read every click of
// those campaigns: an IP behind which many clicks arrive (a carrier NAT, or the bench's loopback)
// cost ~150 ms of engine time per install for 200k clicks, ~30 ms this way. `clicks.ts` is the
// column: DETAILS makes `ts` a string alias.

/** One lookup of a batch: a match key ('c:<click id>' or 'a:<ad id>') or an IP, and its window. */
export type ClickLookup = { value: string; fromMs: number; toMs: number };

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

// The lookups travel as three arrays; the inner query joins each lookup's rows to its own window
// and keeps its newest MAX_CANDIDATES (LIMIT … BY the lookup's index), so the answer holds what
// each lookup alone would read. A batch of installs costs two statements, not three each.
// Lookups of one value that end at the same time are sent as one (their windows merged: see
// lookupSpans), so many installs behind one IP do not multiply that IP's clicks in the join.
// The bound on s.ts (the earliest window's start) lets the engine skip the weeks no window reaches
// (both tables are partitioned by week since ClickHouse migration 0023).
function lookupQuery(src: Source): string {
  return `${DETAILS} AND (campaign_id, toDate(clicks.ts), click_id) IN (
       SELECT s.campaign_id, toDate(s.ts), ${src.clickId} FROM ${src.table} AS s
       INNER JOIN (
         SELECT i, {v:Array(String)}[i] AS v, {lo:Array(Int64)}[i] AS lo, {hi:Array(Int64)}[i] AS hi
         FROM (SELECT arrayJoin(range(1, length({v:Array(String)}) + 1)) AS i)) AS l ON s.${src.column} = l.v
       WHERE s.project_id = {p:String} AND s.${src.column} IN {v:Array(String)}
         AND s.ts >= fromUnixTimestamp64Milli(arrayMin({lo:Array(Int64)}), 'UTC')
         AND toUnixTimestamp64Milli(s.ts) BETWEEN l.lo AND l.hi
       ORDER BY s.ts DESC LIMIT ${MAX_CANDIDATES} BY l.i)
     ORDER BY ts DESC LIMIT 1 BY click_id`;
}

/**
 * The spans to ask for: lookups of the same value whose windows end at the same instant (clipped
 * to now: no click is newer) become one span from the earliest start. The newest MAX_CANDIDATES
 * clicks of that span hold the newest MAX_CANDIDATES of each of its lookups' windows (same end,
 * later or equal start), so the answer is still exact. Installs of a batch all end an hour after
 * they began, in the future, so a value is one span however many installs share it.
 */
function lookupSpans(lookups: ClickLookup[], nowMs: number): ClickLookup[] {
  const spans = new Map<string, ClickLookup>();
  for (const l of lookups) {
    const toMs = Math.min(l.toMs, nowMs);
    const key = `${l.value}\n${toMs}`;
    const span = spans.get(key);
    spans.set(key, { value: l.value, fromMs: Math.min(span?.fromMs ?? l.fromMs, l.fromMs), toMs });
  }
  return [...spans.values()];
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
  // Rows come newest first; each lookup keeps those inside its own window, at most MAX_CANDIDATES.
  return lookups.map((l) =>
    (byValue.get(l.value) ?? []).filter((c) => c.ts >= l.fromMs && c.ts <= l.toMs).slice(0, MAX_CANDIDATES),
  );
}

/** For each lookup by match key, its clicks in its window, newest first (one statement). */
export function findClicksByKeys(ch: ClickHouseClient, projectId: string, lookups: ClickLookup[]): Promise<Click[][]> {
  return lookup(ch, BY_KEY, projectId, lookups);
}

/** For each lookup by IP, its clicks in its window, newest first (one statement). */
export function findClicksByIps(ch: ClickHouseClient, projectId: string, lookups: ClickLookup[]): Promise<Click[][]> {
  return lookup(ch, BY_IP, projectId, lookups);
}
