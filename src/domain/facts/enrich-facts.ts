// Adds the install's attribution to facts tied to an install (sign-ups, events, payments) when the
// writer moves them, so every row carries the campaign / ad set / creative / keyword and network
// it belongs to and materialized views never join. A fact whose install is still being attributed
// waits (released back to the outbox, where it rests a while; see releaseRows) for up to
// ATTRIBUTION_WAIT_MS, then goes out as organic.
import type { Deps } from '../../deps.ts';
import { formatChTime, localDay } from '../../lib/time.ts';
import { findAttributionSettingsCached } from '../../store/postgres/attribution-settings.ts';
import type { ClaimedRow } from '../../store/postgres/fact-outbox.ts';
import { findInstallAttributions, type InstallAttribution } from '../../store/postgres/installs.ts';
import { attributionSettings } from '../attribution/settings.ts';

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

/** The install's columns; the re-engagement campaign alone depends on the fact's time. */
function installColumns(
  a: InstallAttribution | undefined,
  tz: string,
): { cols: Columns; x: InstallAttribution | typeof ORGANIC_X } {
  const x = a?.status === 'decided' ? a : { ...ORGANIC_X, createdAt: a?.createdAt ?? null };
  const installMs = x.createdAt?.getTime() ?? 0;
  return {
    x,
    cols: {
      campaign_id: x.campaignId,
      display_id: x.displayId,
      network: x.network,
      ad_set_id: x.adSetId,
      ad_set_name: x.adSetName,
      creative_id: x.creativeId,
      creative_name: x.creativeName,
      keyword_id: x.keywordId,
      keyword_name: x.keywordName,
      reengagement_campaign_id: 0,
      install_ts: formatChTime(installMs),
      install_day: localDay(installMs, tz),
    },
  };
}

function reengagementCampaign(
  x: InstallAttribution | typeof ORGANIC_X,
  row: Record<string, unknown>,
  reattributionMs: number,
): number {
  if (x.reengagedAt === null) {
    return 0;
  }
  const factMs = Date.parse(`${String(row.ts ?? '').replace(' ', 'T')}Z`);
  const reengaged =
    Number.isFinite(factMs) && factMs >= x.reengagedAt.getTime() && factMs - x.reengagedAt.getTime() <= reattributionMs;
  return reengaged ? x.reengagementCampaignId : 0;
}

/** Splits claimed rows into rows ready to insert (enriched) and rows to release for later. */
export async function enrichFacts(
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
    const tz = String(r.row.project_tz || 'UTC');
    const key = `${r.projectId}|${r.enrichInstall}|${tz}`;
    let c = cache.get(key);
    if (!c) {
      c = installColumns(a, tz);
      cache.set(key, c);
    }
    // The claimed row is this batch's own copy (parsed from the outbox), so it is extended in place.
    const row = Object.assign(r.row, c.cols);
    row.reengagement_campaign_id = reengagementCampaign(c.x, row, p?.reattributionMs ?? 0);
    ready.push(r);
  }
  return { ready, wait };
}
