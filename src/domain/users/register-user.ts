// trigger: identifies the caller's user on an install (spec: "tie the install to the user ID
// (signup or login)"). In one transaction: the install is tied to the user (and marked a reinstall
// when the user already belongs to an earlier install), the user row is created or refreshed, and
// a `signups` fact is written only when the user is new to the project. A repeated trigger or a
// login on another install is not a new sign-up, so retries and logins never count twice. The fact
// leaves out the campaign columns: the fact writer adds the install's attribution (and holds the
// row while that attribution is pending), so a sign-up always counts for the install's campaign.
import type { Deps } from '../../deps.ts';
import { ApiError } from '../../http/errors.ts';
import { MSG } from '../../http/messages.ts';
import { newTimeId } from '../../lib/ids.ts';
import { formatChTime, localDay } from '../../lib/time.ts';
import { findAttributionSettingsCached } from '../../store/postgres/attribution-settings.ts';
import { findCampaignById } from '../../store/postgres/campaigns.ts';
import { insertOutboxRows } from '../../store/postgres/fact-outbox.ts';
import { asSql, beginPipelined, type Tx } from '../../store/postgres/pool.ts';
import type { Project } from '../../store/postgres/projects.ts';
import { tieInstallToUser, upsertAppUser } from '../../store/postgres/users.ts';
import { queueAnalyticsDeliveries } from '../analytics/queue-analytics-deliveries.ts';
import { attributionSettings } from '../attribution/settings.ts';
import { queueDeliveries } from '../deliveries/queue-deliveries.ts';
import { findInstallPlatformBatched } from '../events/resolve-registered-user.ts';
import { campaignDeeplink } from '../links/deeplink-params.ts';
import { recordSkanActivity } from '../skan/record-skan-activity.ts';
import { undoUninstall } from '../uninstalls/undo-uninstall.ts';

export type UserDetails = {
  userId: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  /** Every user_data field other than id / name / email / phone, passed back by attributed-users. */
  extras: Record<string, unknown>;
};

export type RegisterUserInput = UserDetails & {
  installInstanceId: string;
  deviceData: Record<string, unknown>;
  /** The trigger's whole `data` object: only the signup webhook's additional_data carries it. */
  data: Record<string, unknown>;
  isFirstTimeUser: boolean | null;
  userCreatedAt: string | null;
};

/**
 * spec: trigger answers `{deeplink, trigger: boolean}` without saying what `trigger` means. Ours:
 * true when this call registered the user (a sign-up was recorded), false for a repeat or a login.
 * deeplink: the campaign's deeplink once the install is attributed to one, else null.
 */
export type TriggerAnswer = { deeplink: string | null; trigger: boolean };

export async function registerUser(
  deps: Pick<Deps, 'sql' | 'now'>,
  project: Project,
  input: RegisterUserInput,
): Promise<TriggerAnswer> {
  const now = deps.now();
  // An iOS install's sign-up moves its SKAN counters (read, re-evaluated, written back), so only a
  // body for another platform may share a pipeline with other requests' bodies.
  const platform = await findInstallPlatformBatched(deps, project.id, input.installInstanceId);
  if (platform === undefined) {
    // Refused before the transaction: a body that throws makes its whole commit group re-run alone.
    throw new ApiError(400, MSG.installNotFound);
  }
  const { reattributionWindowMs: reattributionMs } = attributionSettings(
    await findAttributionSettingsCached(deps.sql, project.id),
  );
  const register = async (txh: Tx) => {
    const tx = asSql(txh);
    // The user row first: a first trigger of the same user on another install waits here for this
    // one's commit, so its tie below sees this install tied (and is marked a reinstall).
    const user = await upsertAppUser(tx, {
      projectId: project.id,
      userId: input.userId,
      name: input.name,
      email: input.email,
      phone: input.phone,
      extras: input.extras,
      deviceData: input.deviceData,
      installInstanceId: input.installInstanceId,
      isFirstTimeUser: input.isFirstTimeUser,
      userCreatedAt: input.userCreatedAt,
      attributedAt: new Date(now),
    });
    const tied = await tieInstallToUser(
      tx,
      project.id,
      input.installInstanceId,
      input.userId,
      reattributionMs,
      user.created,
    );
    if (!tied) {
      throw new ApiError(400, MSG.installNotFound);
    }
    // A sign-up or login is the app in use: it breaks a run of failed pushes (or undoes an uninstall).
    if (tied.pushStateSet) {
      await undoUninstall(tx, project, input.installInstanceId, now);
    }
    if (user.created) {
      const eventId = `su_${newTimeId()}`;
      await insertOutboxRows(tx, [
        {
          table: 'signups',
          factId: eventId,
          projectId: project.id,
          enrichInstall: input.installInstanceId,
          row: {
            event_id: eventId,
            project_id: project.id,
            install_instance_id: input.installInstanceId,
            user_id: input.userId,
            ts: formatChTime(now),
            project_tz: project.timezone,
            day: localDay(now, project.timezone),
            platform: tied.platform,
            is_first_time: input.isFirstTimeUser ? 1 : 0,
          },
        },
      ]);
      await recordSkanActivity(tx, project.id, input.installInstanceId, { kind: 'signup', name: '', amount: '0' }, now);
      await queueDeliveries(tx, {
        kind: 'signup',
        projectId: project.id,
        installInstanceId: input.installInstanceId,
        userId: input.userId,
        occurredAtMs: now,
        data: input.data,
      });
    }
    // Analytics vendors get the user's attribution once per (user, vendor ids): a login or a repeat
    // trigger that brings a new id (say a mixpanel_distinct_id) queues that id's update.
    await queueAnalyticsDeliveries(tx, { projectId: project.id, userId: input.userId, nowMs: now });
    return { install: tied, created: user.created };
  };
  const { install, created } = await (platform === 'IOS'
    ? deps.sql.begin(register)
    : beginPipelined(deps.sql, register));
  const campaign =
    install.attributionStatus === 'decided' && install.campaignId
      ? await findCampaignById(deps.sql, project.id, install.campaignId)
      : undefined;
  const deeplink = campaignDeeplink(campaign, install.linkParams);
  return { deeplink, trigger: created };
}
