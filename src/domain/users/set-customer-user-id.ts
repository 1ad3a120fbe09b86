// customer-user-id (real-clients §4.11, not in the spec; newer SDKs call it besides trigger): ties
// the install to the caller's user id, with the same reinstall rule as trigger. It neither creates
// the user nor records a sign-up: trigger stays the one place a user is registered (spec Rules 1
// and 3: "registered/attributed through trigger"). Creating the user here would make a later
// trigger look like a login, so an app calling this before signup would lose its sign-up.
import type { Deps } from '../../deps.ts';
import { ApiError } from '../../http/errors.ts';
import { MSG } from '../../http/messages.ts';
import { findAttributionSettingsCached } from '../../store/postgres/attribution-settings.ts';
import { retryConflicts } from '../../store/postgres/pool.ts';
import type { Project } from '../../store/postgres/projects.ts';
import { tieInstallToUser } from '../../store/postgres/users.ts';
import { attributionSettings } from '../attribution/settings.ts';

export type SetCustomerUserIdInput = { installInstanceId: string; userId: string };

export async function setCustomerUserId(
  deps: Pick<Deps, 'sql'>,
  project: Project,
  input: SetCustomerUserIdInput,
): Promise<void> {
  const { reattributionWindowMs } = attributionSettings(await findAttributionSettingsCached(deps.sql, project.id));
  // One statement: a deadlock victim committed nothing and may run again (pool.ts).
  const tied = await retryConflicts(() =>
    tieInstallToUser(deps.sql, project.id, input.installInstanceId, input.userId, reattributionWindowMs, false),
  );
  if (!tied) {
    throw new ApiError(400, MSG.installNotFound);
  }
}
