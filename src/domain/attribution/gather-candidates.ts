// Collects what the engine needs for each install of a batch: its signals (device, Play referrer,
// link, a network's claim through the resolvers) and the candidate clicks within the windows, from
// ClickHouse and from the outbox (clicks not yet moved, so a decision never waits for the writer),
// with what Postgres knows of them: which already decided an install, which campaigns were deleted.
import type { Deps } from '../../deps.ts';
import { settleAll } from '../../lib/micro-batch.ts';
import { type ClickLookup, findClicksByIps, findClicksByKeys } from '../../store/clickhouse/clicks.ts';
import { findAttributedClicks, findCampaignDeletions } from '../../store/postgres/candidate-clicks.ts';
import type { InstallRecord } from '../../store/postgres/installs.ts';
import { findPendingClicks, type PendingLookup } from '../../store/postgres/pending-clicks.ts';
import { devicesSeenBefore } from '../../store/postgres/reinstalls.ts';
import { campaignFromLink } from '../campaigns/parse-link.ts';
import { clickIdFromReferrer } from '../identity/device-signals.ts';
import { networkResolvers } from './network-resolvers.ts';
import { resolveNetworkClaim } from './resolvers.ts';
import { type AttributionSettings, reattributionSince } from './settings.ts';
import type { Candidates, Click, InstallSignals } from './types.ts';

const HOUR = 3600_000;

/** The campaign the install's link names, if it was live when the install was made (deleted since: still it, as for clicks). */
async function link(deps: Pick<Deps, 'sql' | 'config'>, install: InstallRecord) {
  if (!install.initLink) {
    return null;
  }
  const c = await campaignFromLink(deps, install.projectId, install.initLink, install.createdAt);
  return c ? { campaignId: c.id, displayId: c.displayId, network: c.network ?? '' } : null;
}

/** The clicks of one lookup, from ClickHouse and from the outbox (not yet moved), each once, newest first. */
function merge(fromClickHouse: Click[], fromOutbox: Click[]): Click[] {
  const seen = new Map<string, Click>();
  for (const c of [...fromClickHouse, ...fromOutbox]) {
    seen.set(c.clickId, seen.get(c.clickId) ?? c);
  }
  return [...seen.values()].sort((a, b) => b.ts - a.ts);
}

export type GatherItem = { install: InstallRecord; cfg: AttributionSettings };
export type Gathered = { signals: InstallSignals; candidates: Candidates };
type Lookups = { referrer?: PendingLookup; adId?: PendingLookup; ip?: PendingLookup };

/**
 * What one install looks up: its Play referrer's click id, its ad id and its IP, each in its window.
 * A window runs to an hour after the install: a later click never wins, but it is noted in the
 * record ('click after install'); the stores keep only a few of those apart from the clicks up to
 * the install (atMs), so a busy IP's clicks after the install never push out the install's own.
 */
function lookupsOf({ install, cfg }: GatherItem): Lookups {
  const atMs = install.createdAt.getTime();
  const referrerClickId = clickIdFromReferrer(install.installRef);
  const adId = install.gaid ?? install.idfa;
  const toMs = atMs + HOUR;
  const fromMs = atMs - cfg.clickLookbackMs;
  return {
    referrer: referrerClickId
      ? { by: 'clickId', value: referrerClickId, fromMs: fromMs - 24 * HOUR, atMs, toMs }
      : undefined,
    adId: adId && cfg.methods.adId ? { by: 'adId', value: adId, fromMs, atMs, toMs } : undefined,
    ip:
      install.ip && cfg.methods.fingerprint && cfg.fingerprintWindowMs > 0
        ? {
            by: 'ip',
            value: install.ip,
            fromMs: atMs - Math.min(cfg.fingerprintWindowMs, cfg.clickLookbackMs),
            atMs,
            toMs,
          }
        : undefined,
  };
}

const chValue = (l: PendingLookup): ClickLookup => ({
  value: l.by === 'clickId' ? `c:${l.value}` : l.by === 'adId' ? `a:${l.value}` : l.value,
  fromMs: l.fromMs,
  atMs: l.atMs,
  toMs: l.toMs,
});

/**
 * Candidate clicks for every lookup of one project's installs: one ClickHouse statement by match
 * key, one by IP, and the outbox's clicks, all at once. Answers each lookup's clicks by identity.
 */
async function projectClicks(
  deps: Pick<Deps, 'sql' | 'ch'>,
  projectId: string,
  lookups: PendingLookup[],
): Promise<Map<PendingLookup, Click[]>> {
  const keyed = lookups.filter((l) => l.by !== 'ip');
  const byIp = lookups.filter((l) => l.by === 'ip');
  const [keyClicks = [], ipClicks = [], waiting = []] = await settleAll([
    findClicksByKeys(deps.ch, projectId, keyed.map(chValue)),
    findClicksByIps(deps.ch, projectId, byIp.map(chValue)),
    findPendingClicks(deps.sql, projectId, [...keyed, ...byIp]),
  ]);
  const stored = [...keyClicks, ...ipClicks];
  return new Map([...keyed, ...byIp].map((l, i) => [l, merge(stored[i] ?? [], waiting[i] ?? [])]));
}

/** What the engine needs about one install that is read for it alone: its link and a network's claim. */
async function installSignals(
  deps: Pick<Deps, 'sql' | 'config' | 'log' | 'cache'>,
  { install, cfg }: GatherItem,
): Promise<Pick<InstallSignals, 'linkCampaign' | 'networkClaim'>> {
  const [linkCampaign, networkClaim] = await Promise.all([
    link(deps, install),
    // May throw NetworkUnavailableError: the job retries (see resolvers.ts).
    cfg.methods.networkResolvers ? resolveNetworkClaim(deps, networkResolvers(deps), install) : null,
  ]);
  return { linkCampaign, networkClaim };
}

/** The candidate clicks of every lookup of the batch, project by project. */
async function batchClicks(
  deps: Pick<Deps, 'sql' | 'ch'>,
  items: GatherItem[],
  lookups: Lookups[],
): Promise<Map<PendingLookup, Click[]>> {
  const clicks = new Map<PendingLookup, Click[]>();
  for (const projectId of new Set(items.map((x) => x.install.projectId))) {
    const own = lookups
      .filter((_, i) => items[i]?.install.projectId === projectId)
      .flatMap((l) => [l.referrer, l.adId, l.ip].filter((x) => x !== undefined));
    for (const [l, c] of await projectClicks(deps, projectId, own)) {
      clicks.set(l, c);
    }
  }
  return clicks;
}

type ClickState = { taken: Set<string>; deletions: Map<number, Date> };

/**
 * Which of the batch's IP clicks already decided an install (only a fingerprint match cares), and
 * which of its candidates' campaigns were deleted: two statements for the whole batch, at once.
 */
async function clickState(
  deps: Pick<Deps, 'sql'>,
  items: GatherItem[],
  lookups: Lookups[],
  clicks: Map<PendingLookup, Click[]>,
): Promise<ClickState> {
  const ipClicks = lookups.flatMap((l, i) =>
    (l.ip ? (clicks.get(l.ip) ?? []) : []).map((c) => ({
      projectId: (items[i] as GatherItem).install.projectId,
      clickId: c.clickId,
    })),
  );
  const campaignIds = new Set([...clicks.values()].flatMap((list) => list.map((c) => c.campaignId)));
  const [taken, deletions] = await Promise.all([
    findAttributedClicks(deps.sql, ipClicks),
    findCampaignDeletions(deps.sql, [...campaignIds]),
  ]);
  return { taken, deletions };
}

/** The install's own view of the click state: its project's taken clicks, campaigns deleted by its time. */
function stateOf(state: ClickState, install: InstallRecord, own: Click[]) {
  const at = install.createdAt.getTime();
  const takenClickIds = new Set(
    own.filter((c) => state.taken.has(`${install.projectId}\n${c.clickId}`)).map((c) => c.clickId),
  );
  const deletedCampaignIds = new Set(
    own
      .filter((c) => (state.deletions.get(c.campaignId)?.getTime() ?? Number.POSITIVE_INFINITY) <= at)
      .map((c) => c.campaignId),
  );
  return { takenClickIds, deletedCampaignIds };
}

/**
 * Gathers the signals and candidate clicks of a batch of installs. The click lookups of all
 * installs share their statements (per project); the rest is read per install. One install's
 * failure (a network that cannot answer now) fails that install only; a store failure fails all.
 */
export async function gatherCandidates(
  deps: Pick<Deps, 'sql' | 'ch' | 'config' | 'log' | 'cache'>,
  items: GatherItem[],
): Promise<PromiseSettledResult<Gathered>[]> {
  const lookups = items.map(lookupsOf);
  const [[clicks, state], seenBefore, signals] = await Promise.all([
    batchClicks(deps, items, lookups).then(
      async (found) => [found, await clickState(deps, items, lookups, found)] as const,
    ),
    // A device installed before only outside the reattribution window is acquired anew (an install).
    devicesSeenBefore(
      deps.sql,
      items.map(({ install, cfg }) => ({ install, since: reattributionSince(install.createdAt, cfg) })),
    ),
    Promise.allSettled(items.map((x) => installSignals(deps, x))),
  ]);
  return items.map(({ install }, i) => {
    const own = signals[i] as (typeof signals)[number];
    if (own.status === 'rejected') {
      return own;
    }
    const l = lookups[i] as Lookups;
    const of = (x: PendingLookup | undefined) => (x ? (clicks.get(x) ?? []) : []);
    return {
      status: 'fulfilled',
      value: {
        signals: {
          installTs: install.createdAt.getTime(),
          platform: install.platform,
          ip: install.ip,
          os: install.os,
          osVersion: install.osVersion,
          deviceModel: install.deviceModel,
          playReferrer: install.installRef
            ? {
                clickId: clickIdFromReferrer(install.installRef),
                installBeginTs: install.installBeginAt?.getTime() ?? null,
              }
            : null,
          // A login before the decision marked it already (users.ts tieInstallToUser).
          seenBefore: (seenBefore[i] ?? false) || install.isReinstall,
          ...own.value,
        },
        candidates: {
          referrerClick: of(l.referrer)[0] ?? null,
          adIdClicks: of(l.adId),
          ipClicks: of(l.ip),
          ...stateOf(state, install, [...of(l.referrer), ...of(l.adId), ...of(l.ip)]),
        },
      },
    };
  });
}
