// Adds the install's attribution to facts tied to an install (sign-ups, events, payments) when the
// writer moves them, so every row carries the campaign / ad set / creative / keyword and network
// it belongs to and materialized views never join. A fact whose install is still being attributed
// waits (released back to the outbox, where it rests a while; see releaseRows) for up to
// ATTRIBUTION_WAIT_MS, then goes out as organic. A payment removal takes its capture's written
// columns instead, whatever the install's attribution is now (removal-columns.ts).
import type { Deps } from '../../deps.ts';
import { formatChTime, localDay } from '../../lib/time.ts';
import { findAttributionSettingsCached } from '../../store/postgres/attribution-settings.ts';
import type { ClaimedRow } from '../../store/postgres/fact-outbox.ts';
import { findInstallAttributions, type InstallAttribution } from '../../store/postgres/installs.ts';
import { attributionSettings } from '../attribution/settings.ts';
import { type CaptureState, locateCaptures, orphanReason, pickColumns, withCaptureColumns } from './removal-columns.ts';

export const ATTRIBUTION_WAIT_MS = 10 * 60_000;

const ORGANIC: Omit<InstallAttribution, 'installInstanceId' | 'status' | 'createdAt'> = {
  campaignId: 0,
  displayId: '',
  network: '',
  adSetId: '',
  adSetName: '',
  creativeId: '',
  creativeName: '',
  keywordId: '',
  keywordName: '',
  reengagedAt: null,
  reengagementCampaignId: 0,
};

type Columns = Record<string, string | number>;

const ORGANIC_X = { ...ORGANIC, createdAt: null as Date | null };

/** The columns the writer adds, as JSON text and as an object (rows already naming one of them). */
type Added = { cols: Columns; text: string; x: InstallAttribution | typeof ORGANIC_X };

/** The install's columns; the re-engagement campaign alone depends on the fact's time (added per row). */
function installColumns(a: InstallAttribution | undefined, tz: string): Added {
  const x = a?.status === 'decided' ? a : { ...ORGANIC_X, createdAt: a?.createdAt ?? null };
  const installMs = x.createdAt?.getTime() ?? 0;
  const cols: Columns = {
    campaign_id: x.campaignId,
    display_id: x.displayId,
    network: x.network,
    ad_set_id: x.adSetId,
    ad_set_name: x.adSetName,
    creative_id: x.creativeId,
    creative_name: x.creativeName,
    keyword_id: x.keywordId,
    keyword_name: x.keywordName,
    install_ts: formatChTime(installMs),
    install_day: localDay(installMs, tz),
  };
  return { x, cols, text: JSON.stringify(cols).slice(1, -1) };
}

/**
 * A key the writer adds, named by the row itself (JSON.stringify text, or jsonb text for rows older
 * than migration 0018: keys unescaped, each once). Built from
 * installColumns' own keys, so a column added there is looked for here too.
 */
const ADDED_KEYS = [...Object.keys(installColumns(undefined, 'UTC').cols), 'reengagement_campaign_id'];
const ADDED_KEY = new RegExp(`"(${ADDED_KEYS.join('|')})":`);
/** What a removal repeats of its capture: the columns the writer added, and the install's platform. */
const CAPTURE_KEYS = ['platform', ...ADDED_KEYS];

/**
 * The row's JSON text with the columns added, spliced in before its closing brace: the writer does
 * not parse the row. A row naming one of the columns already (none of ours does) is parsed and
 * merged instead, as ClickHouse refuses a row naming a column twice.
 */
export function withColumns(
  json: string,
  added: { text: string; cols: Columns },
  reengagementCampaignId: number,
): string {
  const reengagement = `"reengagement_campaign_id":${reengagementCampaignId}`;
  if (ADDED_KEY.test(json)) {
    return JSON.stringify({ ...JSON.parse(json), ...added.cols, reengagement_campaign_id: reengagementCampaignId });
  }
  const body = json.slice(0, json.lastIndexOf('}')).trimEnd();
  return `${body}${body === '{' ? '' : ','}${added.text},${reengagement}}`;
}

function reengagementCampaign(
  x: InstallAttribution | typeof ORGANIC_X,
  ts: string | null,
  reattributionMs: number,
): number {
  if (x.reengagedAt === null) {
    return 0;
  }
  const factMs = Date.parse(`${String(ts ?? '').replace(' ', 'T')}Z`);
  const reengaged =
    Number.isFinite(factMs) && factMs >= x.reengagedAt.getTime() && factMs - x.reengagedAt.getTime() <= reattributionMs;
  return reengaged ? x.reengagementCampaignId : 0;
}

/** Splits rows into rows ready to insert (enriched from their install) and rows to release for later. */
async function enrichFromInstalls(
  deps: Pick<Deps, 'sql' | 'now'>,
  rows: ClaimedRow[],
): Promise<{ ready: ClaimedRow[]; wait: ClaimedRow[] }> {
  const byProject = new Map<string, Set<string>>();
  for (const r of rows) {
    if (r.enrichInstall !== null) {
      const ids = byProject.get(r.projectId) ?? new Set<string>();
      ids.add(r.enrichInstall);
      byProject.set(r.projectId, ids);
    }
  }
  if (byProject.size === 0) {
    return { ready: rows, wait: [] };
  }
  const found = new Map<string, { attribution: Map<string, InstallAttribution>; reattributionMs: number }>();
  for (const [projectId, ids] of byProject) {
    const [attribution, settings] = await Promise.all([
      findInstallAttributions(deps.sql, projectId, [...ids]),
      findAttributionSettingsCached(deps.sql, projectId),
    ]);
    found.set(projectId, { attribution, reattributionMs: attributionSettings(settings).reattributionWindowMs });
  }
  const ready: ClaimedRow[] = [];
  const wait: ClaimedRow[] = [];
  const now = deps.now();
  const cache = new Map<string, ReturnType<typeof installColumns>>();
  for (const r of rows) {
    if (r.enrichInstall === null) {
      ready.push(r);
      continue;
    }
    const p = found.get(r.projectId);
    const a = p?.attribution.get(r.enrichInstall);
    if (a?.status === 'pending' && now - r.createdAt.getTime() < ATTRIBUTION_WAIT_MS) {
      wait.push(r);
      continue;
    }
    // Installs have many facts per batch: their columns (two date formats) are made once.
    const tz = r.tz || 'UTC';
    const key = `${r.projectId}|${r.enrichInstall}|${tz}`;
    let c = cache.get(key);
    if (!c) {
      c = installColumns(a, tz);
      cache.set(key, c);
    }
    // The claimed row is this batch's own copy, so it is replaced in place (dead letters keep it so).
    r.json = withColumns(r.json, c, reengagementCampaign(c.x, r.ts, p?.reattributionMs ?? 0));
    ready.push(r);
  }
  return { ready, wait };
}

export type Enriched = {
  ready: ClaimedRow[];
  wait: ClaimedRow[];
  /** Rows ClickHouse must not get (a removal whose capture it does not hold), with the reason. */
  refused: { row: ClaimedRow; reason: string }[];
};

/**
 * Splits claimed rows (oldest first) into rows ready to insert (enriched), rows to release for
 * later, and rows to refuse. `ownSeqs` are all the rows the batch claimed (`rows` and those
 * dropped as already stored).
 */
export async function enrichFacts(
  deps: Pick<Deps, 'sql' | 'ch' | 'now'>,
  table: string,
  rows: ClaimedRow[],
  opts: { ownSeqs: string[]; clickhouseTimeoutMs: number },
): Promise<Enriched> {
  const captures = rows.some((r) => r.enrichFrom !== null)
    ? await locateCaptures(deps, table, rows, { ...opts, keys: CAPTURE_KEYS })
    : new Map<string, CaptureState>();
  // Removals whose capture ClickHouse does not hold nor will: enriched from the install, then refused.
  const fromInstall = rows.filter((r) => {
    const at = captures.get(r.seq)?.at;
    return at === undefined || at === 'nowhere';
  });
  const installs = await enrichFromInstalls(deps, fromInstall);
  const waiting = new Set(installs.wait);
  const wait: ClaimedRow[] = [];
  const refused: Enriched['refused'] = [];
  const bad = new Set<ClaimedRow>();
  for (const r of rows) {
    const c = captures.get(r.seq);
    const from = r.enrichFrom as string;
    if (waiting.has(r) || c?.at === 'outbox' || (c?.at === 'batch' && waiting.has(c.capture))) {
      wait.push(r);
    } else if (c?.at === 'batch') {
      r.json = withCaptureColumns(r.json, pickColumns(JSON.parse(c.capture.json), CAPTURE_KEYS));
    } else if (c?.at === 'clickhouse' || c?.at === 'dead-letter') {
      r.json = withCaptureColumns(r.json, c.cols);
    }
    if (c?.at === 'dead-letter' || (c?.at === 'nowhere' && !waiting.has(r))) {
      refused.push({ row: r, reason: orphanReason(from, c.at === 'dead-letter') });
      bad.add(r);
    }
  }
  const out = new Set([...wait, ...bad]);
  return { ready: rows.filter((r) => !out.has(r)), wait, refused };
}
