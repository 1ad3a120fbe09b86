// Adds the install's attribution to facts tied to an install (sign-ups, events, payments) when the
// writer moves them, so every row carries the campaign / ad set / creative / keyword and network
// it belongs to and materialized views never join. A fact whose install is still being attributed
// waits (released back to the outbox) for up to ATTRIBUTION_WAIT_MS, then goes out as organic.
import type { Deps } from '../../deps.ts';
import { formatChTime, localDay } from '../../lib/time.ts';
import { findAttributionSettings } from '../../store/postgres/attribution-settings.ts';
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

function columns(a: InstallAttribution | undefined, row: Record<string, unknown>, reattributionMs: number) {
  const x = a?.status === 'decided' ? a : { ...ORGANIC, createdAt: a?.createdAt ?? null };
  const factMs = Date.parse(`${String(row.ts ?? '').replace(' ', 'T')}Z`);
  const reengaged =
    x.reengagedAt !== null &&
    Number.isFinite(factMs) &&
    factMs >= x.reengagedAt.getTime() &&
    factMs - x.reengagedAt.getTime() <= reattributionMs;
  const installMs = x.createdAt?.getTime() ?? 0;
  return {
    campaign_id: x.campaignId,
    display_id: x.displayId,
    network: x.network,
    ad_set_id: x.adSetId,
    ad_set_name: x.adSetName,
    creative_id: x.creativeId,
    creative_name: x.creativeName,
    keyword_id: x.keywordId,
    keyword_name: x.keywordName,
    reengagement_campaign_id: reengaged ? x.reengagementCampaignId : 0,
    install_ts: formatChTime(installMs),
    install_day: localDay(installMs, String(row.project_tz || 'UTC')),
  };
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
      findAttributionSettings(deps.sql, projectId),
    ]);
    found.set(projectId, { attribution, reattributionMs: attributionSettings(settings).reattributionWindowMs });
  }
  const ready: ClaimedRow[] = [];
  const wait: ClaimedRow[] = [];
  const now = deps.now();
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
    ready.push({ ...r, row: { ...r.row, ...columns(a, r.row, p?.reattributionMs ?? 0) } });
  }
  return { ready, wait };
}
