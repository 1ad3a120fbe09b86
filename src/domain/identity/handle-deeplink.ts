// handle-deeplink: a deeplink opened in the app. When it is one of this project's campaign links,
// the campaign's deeplink is returned (apps route on it), and:
//  - an install not stored yet (the link overtook init at a cold start) gets it kept for its init;
//  - an install whose attribution is still pending gets the link as its deterministic signal;
//  - a known, attributed install records a re-engagement with that campaign (kind reengagement),
//    unless it re-engaged with the same campaign within the last 3 minutes (an SDK retry, also
//    when another campaign was opened in between), or it was active within the project's
//    inactivity window.
import type { Deps } from '../../deps.ts';
import { newTimeId } from '../../lib/ids.ts';
import { enqueueAttributionOrHold } from '../../queue/enqueue.ts';
import { findAttributionSettings } from '../../store/postgres/attribution-settings.ts';
import type { CampaignRecord } from '../../store/postgres/campaigns.ts';
import { insertOutboxRows } from '../../store/postgres/fact-outbox.ts';
import { findInstall, type InstallRecord, lockInstall, saveReengagement } from '../../store/postgres/installs.ts';
import { asSql, retryConflicts } from '../../store/postgres/pool.ts';
import type { Project } from '../../store/postgres/projects.ts';
import { decisionRow, type RecordedDecision } from '../attribution/attribute-install.ts';
import { type AttributionSettings, attributionSettings } from '../attribution/settings.ts';
import { campaignFromLink } from '../campaigns/parse-link.ts';
import { campaignDeeplink, linkParamsOfUrl } from '../links/deeplink-params.ts';
import { takeCampaignLink } from './campaign-link.ts';
import { keepLinkForInit } from './keep-link-for-init.ts';

export type DeeplinkAnswer = { deeplink: string; is_linkrunner: boolean; processing: boolean };

// How long the iOS SDK may go on sending one handle-deeplink (real-clients §1, §3): 5 attempts of
// up to 30 s each (its request timeout) with 2 + 4 + 8 + 16 s between them. The first attempt can
// be stored and its answer lost; a 30 s window counted its retries as new re-engagements.
const RETRY_WINDOW_MS = 3 * 60_000;
const SESSION_MS = 5 * 60_000;

/** The re-engagement's decision: the link opened is its one candidate, and its windows are the project's. */
function reengagement(c: CampaignRecord, cfg: AttributionSettings): RecordedDecision {
  return {
    kind: 'reengagement',
    method: 'deeplink',
    attributionType: 'INORGANIC',
    touchType: 'click',
    campaignId: c.id,
    displayId: c.displayId,
    network: c.network ?? '',
    adSetId: '',
    adSetName: '',
    creativeId: '',
    creativeName: '',
    keywordId: '',
    keywordName: '',
    click: null,
    ctitMs: -1,
    confidence: 1,
    suspicious: false,
    suspiciousReason: '',
    candidates: [
      {
        method: 'deeplink',
        click_id: '',
        campaign_id: c.id,
        outcome: 'won',
        reason: 'campaign link opened by the app',
      },
    ],
    windows: {
      reattribution_window_ms: cfg.reattributionWindowMs,
      reengagement_inactivity_ms: cfg.reengagementInactivityMs,
    },
  };
}

/**
 * Whether opening `c` now repeats the link that decided the install: the report reached it while
 * pending (its `link` signal) and a retry of it comes once the link decided. The link is reported
 * in the install's first session, so that session plus the SDK's retry span covers its retries.
 */
function repeatsDecidingLink(install: InstallRecord, c: CampaignRecord, now: number): boolean {
  return (
    install.attributionMethod === 'link' &&
    install.campaignId === c.id &&
    now - install.createdAt.getTime() < SESSION_MS + RETRY_WINDOW_MS
  );
}

/**
 * When `install` last re-engaged with campaign `campaignId`, as far as the retry span needs: its
 * last re-engagement, or one before it that is still in the span (A, then B, then A's retry).
 */
function lastReengagedWith(install: InstallRecord, campaignId: number): number | undefined {
  if (install.reengagementCampaignId === campaignId && install.reengagedAt) {
    return install.reengagedAt.getTime();
  }
  return install.priorReengagements[String(campaignId)];
}

/** The re-engagements before one recorded `now`, pruned to the retry span: what saveReengagement keeps. */
function priorWithinRetrySpan(install: InstallRecord, campaignId: number, now: number): Record<string, number> {
  const prior: Record<string, number> = {};
  const keep = (c: string, at: number) => {
    if (c !== String(campaignId) && now - at < RETRY_WINDOW_MS && at > (prior[c] ?? 0)) {
      prior[c] = at;
    }
  };
  for (const [c, at] of Object.entries(install.priorReengagements)) {
    keep(c, at);
  }
  if (install.reengagementCampaignId !== null && install.reengagedAt) {
    keep(String(install.reengagementCampaignId), install.reengagedAt.getTime());
  }
  return prior;
}

/** Whether opening campaign `c` now is a re-engagement of `install` (see the file header). */
function reengages(install: InstallRecord, c: CampaignRecord, now: number, inactivityMs: number): boolean {
  const last = install.reengagedAt?.getTime() ?? 0;
  const sameCampaign = lastReengagedWith(install, c.id);
  if ((sameCampaign !== undefined && now - sameCampaign < RETRY_WINDOW_MS) || repeatsDecidingLink(install, c, now)) {
    return false;
  }
  // Activity before this session: a cold start runs init just before reporting the deeplink, so
  // an init in the last few minutes belongs to this session and the open before it counts.
  const seen = install.lastSeenAt.getTime();
  const before = now - seen < SESSION_MS ? (install.previousSeenAt?.getTime() ?? install.createdAt.getTime()) : seen;
  const lastActive = Math.max(before, last);
  return !(inactivityMs > 0 && now - lastActive < inactivityMs);
}

async function reengage(deps: Pick<Deps, 'sql' | 'now'>, project: Project, install: InstallRecord, c: CampaignRecord) {
  const now = deps.now();
  const cfg = attributionSettings(await findAttributionSettings(deps.sql, project.id));
  if (!reengages(install, c, now, cfg.reengagementInactivityMs)) {
    return;
  }
  // Decided again on the locked row: the same link reported twice at once (an SDK retry racing
  // the first request) passed the check above twice and recorded two re-engagements.
  await retryConflicts(() =>
    deps.sql.begin(async (txh) => {
      const tx = asSql(txh);
      const locked = await lockInstall(tx, project.id, install.installInstanceId);
      if (!locked || !reengages(locked, c, now, cfg.reengagementInactivityMs)) {
        return;
      }
      const id = `ad_${newTimeId()}`;
      await saveReengagement(tx, project.id, install.installInstanceId, {
        campaignId: c.id,
        at: new Date(now),
        prior: priorWithinRetrySpan(locked, c.id, now),
      });
      await insertOutboxRows(tx, [
        {
          table: 'attributions',
          factId: id,
          projectId: project.id,
          row: decisionRow(project, locked, reengagement(c, cfg), id, now, now),
        },
      ]);
    }),
  );
}

export async function handleDeeplink(
  deps: Pick<Deps, 'sql' | 'config' | 'queue' | 'now'>,
  project: Project,
  input: { installInstanceId: string; deeplinkUrl: string },
): Promise<DeeplinkAnswer> {
  const campaign = await campaignFromLink(deps, project.id, input.deeplinkUrl);
  if (!campaign) {
    return { deeplink: input.deeplinkUrl, is_linkrunner: false, processing: false };
  }
  // The link's own parameters (a referral code) ride on the deeplink, as attribution-data's do.
  const deeplink = campaignDeeplink(campaign, linkParamsOfUrl(input.deeplinkUrl)) ?? input.deeplinkUrl;
  const install =
    (await findInstall(deps.sql, project.id, input.installInstanceId)) ??
    (await keepLinkForInit(deps, project.id, input.installInstanceId, input.deeplinkUrl));
  if (!install) {
    // Kept for the install's init (keep-link-for-init.ts): its attribution is still to come.
    return { deeplink, is_linkrunner: true, processing: true };
  }
  if (install.attributionStatus === 'pending') {
    // A link init gave that names no campaign gives way to this one (campaign-link.ts).
    await takeCampaignLink(deps, install, input.deeplinkUrl);
    await enqueueAttributionOrHold(deps, project.id, install.installInstanceId);
    return { deeplink, is_linkrunner: true, processing: true };
  }
  await reengage(deps, project, install, campaign);
  return { deeplink, is_linkrunner: true, processing: false };
}
