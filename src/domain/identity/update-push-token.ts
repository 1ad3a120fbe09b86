// update-push-token (and the legacy updatePushToken): the device's push token, kept on its install
// for uninstall tracking. An unknown install is a 400 (as attribution-data): the app must init first.
// The token is never logged or put in a job payload. It moves here from any other install of the
// project that held it (one token, one install: savePushToken). Apps send it from inside the app
// (on every token refresh), so it is the app in use: it breaks a run of failed pushes and undoes an
// uninstall, as an init does.
import type { Deps } from '../../deps.ts';
import { ApiError } from '../../http/errors.ts';
import { MSG } from '../../http/messages.ts';
import { savePushToken } from '../../store/postgres/installs.ts';
import { asSql, retryConflicts } from '../../store/postgres/pool.ts';
import type { Project } from '../../store/postgres/projects.ts';
import { lockPushToken } from '../../store/postgres/push-state.ts';
import { undoUninstall } from '../uninstalls/undo-uninstall.ts';

export async function updatePushToken(
  deps: Pick<Deps, 'sql' | 'now'>,
  project: Project,
  input: { installInstanceId: string; pushToken: string },
): Promise<void> {
  // Saves of one token wait for each other (lockPushToken); a deadlock victim committed nothing and
  // may run again (pool.ts).
  const saved = await retryConflicts(() =>
    deps.sql.begin(async (tx) => {
      await lockPushToken(asSql(tx), project.id, input.pushToken);
      const r = await savePushToken(asSql(tx), project.id, input.installInstanceId, input.pushToken);
      if (r?.pushStateSet) {
        await undoUninstall(asSql(tx), project, input.installInstanceId, deps.now());
      }
      return r !== undefined;
    }),
  );
  if (!saved) {
    throw new ApiError(400, MSG.installNotFound);
  }
}
