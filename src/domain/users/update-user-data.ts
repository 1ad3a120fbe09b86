// set-user-data: updates an existing user's details after trigger (spec: "does not replace
// trigger"): no user is created, no install is tied, no fact is written. The user is user_data.id
// when sent, else the user the install is tied to. With no such user nothing changes and the
// answer still succeeds (`updated: false`): SDKs ignore this body, and an error status would make
// the React Native bridge throw into the app for what is only a too-early call. A vendor id new to
// the user (user_data.mixpanel_distinct_id, …) queues its analytics delivery.
import type { Deps } from '../../deps.ts';
import { asSql, retryConflicts } from '../../store/postgres/pool.ts';
import type { Project } from '../../store/postgres/projects.ts';
import { findInstallUserId, updateAppUser } from '../../store/postgres/users.ts';
import { queueAnalyticsDeliveries } from '../analytics/queue-analytics-deliveries.ts';
import type { UserDetails } from './register-user.ts';

export type UpdateUserDataInput = Omit<UserDetails, 'userId'> & {
  userId: string | null;
  installInstanceId: string;
  deviceData: Record<string, unknown>;
};

export async function updateUserData(
  deps: Pick<Deps, 'sql' | 'now'>,
  project: Project,
  input: UpdateUserDataInput,
): Promise<{ updated: boolean }> {
  const userId = input.userId ?? (await findInstallUserId(deps.sql, project.id, input.installInstanceId));
  if (!userId) {
    return { updated: false };
  }
  // One transaction: the update and the analytics rows a new vendor id queues (deduped by key, so a
  // deadlock victim, which committed nothing, may run again: pool.ts).
  const updated = await retryConflicts(() =>
    deps.sql.begin(async (txh) => {
      const tx = asSql(txh);
      const done = await updateAppUser(tx, project.id, userId, {
        name: input.name,
        email: input.email,
        phone: input.phone,
        extras: input.extras,
        deviceData: input.deviceData,
      });
      if (done) {
        await queueAnalyticsDeliveries(tx, { projectId: project.id, userId, nowMs: deps.now() });
      }
      return done;
    }),
  );
  return { updated };
}
