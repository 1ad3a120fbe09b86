// init: registers an install (first init of an install id) or an app open, in one transaction with
// its install_events fact, then enqueues attribution for an undecided install. A retried init of the
// same install id returns the same processing_id and creates nothing new. A device id a decided
// install gets late (ATT granted after the first launch) is checked against earlier installs. A
// campaign link handle-deeplink reported before the install was stored becomes its init link.
import { createHash } from 'node:crypto';
import type { Deps } from '../../deps.ts';
import { newTimeId } from '../../lib/ids.ts';
import { cutChars } from '../../lib/storable.ts';
import { formatChTime, localDay } from '../../lib/time.ts';
import { enqueueAttributionOrHold } from '../../queue/enqueue.ts';
import { insertOutboxRows } from '../../store/postgres/fact-outbox.ts';
import { type InstallRecord, upsertInstall } from '../../store/postgres/installs.ts';
import { takePendingDeeplink } from '../../store/postgres/pending-deeplinks.ts';
import { asSql, beginPipelined } from '../../store/postgres/pool.ts';
import type { Project } from '../../store/postgres/projects.ts';
import { markLateReinstall } from '../attribution/mark-late-reinstall.ts';
import { campaignFromLink } from '../campaigns/parse-link.ts';
import { undoUninstall } from '../uninstalls/undo-uninstall.ts';
import { takeCampaignLink } from './campaign-link.ts';
import { readDeviceSignals } from './device-signals.ts';
import { KEPT_LINK_TTL_MS } from './keep-link-for-init.ts';

export type InitInput = {
  installInstanceId: string;
  platform: string;
  deviceData: Record<string, unknown>;
  appVersion: string;
  packageVersion: string;
  link: string | null;
};

export type RequestContext = { ip: string; userAgent: string };

/** Stable per install: derived from the project and the install id, never stored elsewhere. */
export function processingIdFor(projectId: string, installInstanceId: string): string {
  return `pr_${createHash('sha256').update(`${projectId}:${installInstanceId}`).digest('base64url').slice(0, 24)}`;
}

/** The campaign link handle-deeplink kept for this install before it was stored, as its init link. */
async function takeKeptLink(deps: Pick<Deps, 'sql' | 'config'>, install: InstallRecord, now: number): Promise<void> {
  const staleBefore = new Date(now - KEPT_LINK_TTL_MS);
  const link = await takePendingDeeplink(deps.sql, install.projectId, install.installInstanceId, staleBefore);
  if (link) {
    // A link init gave that names no campaign gives way to it; a campaign link init gave is kept.
    await takeCampaignLink(deps, install, link);
  }
}

export async function registerInstall(
  deps: Pick<Deps, 'sql' | 'config' | 'queue' | 'now' | 'log'>,
  project: Project,
  input: InitInput,
  ctx: RequestContext,
): Promise<{ processingId: string; created: boolean }> {
  const signals = readDeviceSignals(input.platform, input.deviceData);
  const processingId = processingIdFor(project.id, input.installInstanceId);
  const now = deps.now();
  // The upsert, the outbox row and the undo are each one atomic statement: the body may share a
  // pipeline with other requests' bodies (pool.ts beginPipelined).
  const { created, idsFilled, install } = await beginPipelined(deps.sql, async (txh) => {
    const tx = asSql(txh);
    const result = await upsertInstall(tx, {
      projectId: project.id,
      installInstanceId: input.installInstanceId,
      processingId,
      platform: input.platform,
      gaid: signals.gaid,
      idfa: signals.idfa,
      idfv: signals.idfv,
      androidId: signals.androidId,
      ip: ctx.ip,
      userAgent: signals.userAgent || cutChars(ctx.userAgent, 1024),
      os: signals.os,
      osVersion: signals.osVersion,
      deviceModel: signals.deviceModel,
      appVersion: input.appVersion,
      packageVersion: input.packageVersion,
      deviceData: input.deviceData,
      installRef: signals.installRef,
      installBeginAt: signals.installBeginAt,
      metaInstallRef: signals.metaInstallRef,
      appleAdsToken: signals.appleAdsToken,
      initLink: input.link,
      at: new Date(now),
    });
    const eventId = `ie_${newTimeId()}`;
    await insertOutboxRows(tx, [
      {
        table: 'install_events',
        factId: eventId,
        projectId: project.id,
        enrichInstall: input.installInstanceId,
        // A new or re-attributed install waits for its decision, which wakes this row.
        resting: result.install.attributionStatus === 'pending',
        row: {
          event_id: eventId,
          project_id: project.id,
          install_instance_id: input.installInstanceId,
          kind: result.created ? 'install' : 'app_open',
          ts: formatChTime(now),
          project_tz: project.timezone,
          day: localDay(now, project.timezone),
          platform: input.platform,
          app_version: input.appVersion,
          package_version: input.packageVersion,
          ip: ctx.ip,
          os: signals.os,
          os_version: signals.osVersion,
          device_model: signals.deviceModel,
        },
      },
    ]);
    // The upsert locked the row, so its uninstalled mark is current: only then is there one to undo.
    if (!result.created && result.install.uninstalled) {
      await undoUninstall(tx, project, input.installInstanceId, now);
    }
    return result;
  });
  if (idsFilled) {
    // Committed already: a failure here must not answer 5xx (the app would retry, a second open).
    await markLateReinstall(deps, install).catch((err: unknown) =>
      deps.log.warn({ err: (err as Error).message }, 'late device id: reinstall check failed'),
    );
  }
  if (install.attributionStatus === 'pending') {
    // Read once the install is committed, so a link handle-deeplink kept meanwhile is seen here or
    // sees the install itself (keep-link-for-init.ts). Committed already, so a failure answers no
    // 5xx; a link it could not read stays kept for the install's next init while it is pending.
    await takeKeptLink(deps, install, now).catch((err: unknown) =>
      deps.log.warn({ err: (err as Error).message }, 'init: kept deeplink not applied'),
    );
    if (!created && input.link && (await campaignFromLink(deps, project.id, input.link))) {
      // A first init's link that names no campaign gives way to this one (campaign-link.ts).
      await takeCampaignLink(deps, install, input.link);
    }
    // The install is committed: if the queue is unreachable (Redis down), the job is held in this
    // process and sent when Redis is back (the reconciler covers a process that stops first), so
    // the app still gets its 202 (a 5xx would make it retry and record a second app open).
    await enqueueAttributionOrHold(deps, project.id, input.installInstanceId);
  }
  return { processingId, created };
}
