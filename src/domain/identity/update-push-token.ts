// update-push-token (and the legacy updatePushToken): the device's push token, kept on its install
// for uninstall tracking. An unknown install is a 400 (as attribution-data): the app must init first.
// The token is never logged or put in a job payload. It moves here from any other install of the
// project that held it (one token, one install: savePushToken).
import type { Deps } from '../../deps.ts';
import { ApiError } from '../../http/errors.ts';
import { MSG } from '../../http/messages.ts';
import { savePushToken } from '../../store/postgres/installs.ts';
import { retryConflicts } from '../../store/postgres/pool.ts';
import type { Project } from '../../store/postgres/projects.ts';

export async function updatePushToken(
  deps: Pick<Deps, 'sql'>,
  project: Project,
  input: { installInstanceId: string; pushToken: string },
): Promise<void> {
  // One statement: a deadlock victim committed nothing and may run again (pool.ts).
  if (!(await retryConflicts(() => savePushToken(deps.sql, project.id, input.installInstanceId, input.pushToken)))) {
    throw new ApiError(400, MSG.installNotFound);
  }
}
