// Collects what the engine needs for one install: its signals (device, Play referrer, link, a
// network's claim through the resolvers) and the candidate clicks from ClickHouse within the windows.
import type { Deps } from '../../deps.ts';
import { findClicksByIp, findClicksByKey } from '../../store/clickhouse/clicks.ts';
import { findCampaignByDisplayId } from '../../store/postgres/campaigns.ts';
import type { InstallRecord } from '../../store/postgres/installs.ts';
import { deviceSeenBefore } from '../../store/postgres/installs.ts';
import { findPendingClicks, type PendingClickFilter } from '../../store/postgres/pending-clicks.ts';
import { displayIdFromLink } from '../campaigns/parse-link.ts';
import { clickIdFromReferrer } from '../identity/device-signals.ts';
import { networkResolvers } from './network-resolvers.ts';
import { resolveNetworkClaim } from './resolvers.ts';
import type { AttributionSettings } from './settings.ts';
import type { Candidates, Click, InstallSignals } from './types.ts';

const HOUR = 3600_000;

async function linkCampaign(deps: Pick<Deps, 'sql' | 'config'>, install: InstallRecord) {
  if (!install.initLink) {
    return null;
  }
  const displayId = await displayIdFromLink(deps, install.projectId, install.initLink);
  const c = displayId ? await findCampaignByDisplayId(deps.sql, install.projectId, displayId) : undefined;
  return c ? { campaignId: c.id, displayId: c.displayId, network: c.network ?? '' } : null;
}

/**
 * Clicks from ClickHouse and from the outbox (not yet moved), each click once. Both are awaited
 * together: awaiting one after the other left the second's rejection unhandled while the first
 * was pending, and an unhandled rejection ends the process (found by the F2 fault test).
 */
async function both(stored: Promise<Click[]>, waiting: Promise<Click[]>): Promise<Click[]> {
  const seen = new Map<string, Click>();
  const [fromClickHouse, fromOutbox] = await Promise.all([stored, waiting]);
  for (const c of [...fromClickHouse, ...fromOutbox]) {
    seen.set(c.clickId, seen.get(c.clickId) ?? c);
  }
  return [...seen.values()].sort((a, b) => b.ts - a.ts);
}

export async function gatherCandidates(
  deps: Pick<Deps, 'sql' | 'ch' | 'config' | 'log' | 'cache'>,
  install: InstallRecord,
  cfg: AttributionSettings,
): Promise<{ signals: InstallSignals; candidates: Candidates }> {
  const installTs = install.createdAt.getTime();
  const referrerClickId = clickIdFromReferrer(install.installRef);
  const adId = install.gaid ?? install.idfa;
  const window = { projectId: install.projectId, fromMs: installTs - cfg.clickLookbackMs, toMs: installTs + HOUR };
  const fpWindow = { ...window, fromMs: installTs - Math.min(cfg.fingerprintWindowMs, cfg.clickLookbackMs) };
  const referrerWindow = { ...window, fromMs: installTs - cfg.clickLookbackMs - 24 * HOUR };
  const pending = (filter: PendingClickFilter, w: typeof window) =>
    findPendingClicks(deps.sql, install.projectId, filter, w);
  const [referrerClicks, adIdClicks, ipClicks, link, seenBefore, networkClaim] = await Promise.all([
    referrerClickId
      ? both(
          findClicksByKey(deps.ch, referrerWindow, `c:${referrerClickId}`),
          pending({ clickId: referrerClickId }, referrerWindow),
        )
      : [],
    adId && cfg.methods.adId ? both(findClicksByKey(deps.ch, window, `a:${adId}`), pending({ adId }, window)) : [],
    install.ip && cfg.methods.fingerprint && cfg.fingerprintWindowMs > 0
      ? both(findClicksByIp(deps.ch, fpWindow, install.ip), pending({ ip: install.ip }, fpWindow))
      : [],
    linkCampaign(deps, install),
    deviceSeenBefore(deps.sql, install),
    // May throw NetworkUnavailableError: the job retries (see resolvers.ts).
    cfg.methods.networkResolvers ? resolveNetworkClaim(deps, networkResolvers(deps), install) : null,
  ]);
  return {
    signals: {
      installTs,
      platform: install.platform,
      ip: install.ip,
      os: install.os,
      osVersion: install.osVersion,
      deviceModel: install.deviceModel,
      playReferrer: install.installRef
        ? { clickId: referrerClickId, installBeginTs: install.installBeginAt?.getTime() ?? null }
        : null,
      linkCampaign: link,
      networkClaim,
      seenBefore,
    },
    candidates: { referrerClick: referrerClicks[0] ?? null, adIdClicks, ipClicks },
  };
}
