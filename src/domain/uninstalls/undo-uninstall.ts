// A later init or event from an install marked uninstalled proves it is on the device again: the
// uninstall state is cleared and an install_events row of kind 'reinstall_after_uninstall' records
// when (the uninstalls fact stays: reporting's `uninstalls` counts detected uninstalls, and this
// row lets a report subtract or show the comebacks). From an install that is only counting failed
// pushes it resets the count (a day the app was used breaks the run of failed days) and records
// nothing. Runs in the caller's transaction; answers whether an uninstall was undone.
import { newTimeId } from '../../lib/ids.ts';
import { formatChTime, localDay } from '../../lib/time.ts';
import { insertOutboxRows } from '../../store/postgres/fact-outbox.ts';
import type { Sql } from '../../store/postgres/pool.ts';
import type { Project } from '../../store/postgres/projects.ts';
import { clearUninstall } from '../../store/postgres/push-state.ts';

export async function undoUninstall(
  tx: Sql,
  project: Pick<Project, 'id' | 'timezone'>,
  installInstanceId: string,
  nowMs: number,
): Promise<boolean> {
  const cleared = await clearUninstall(tx, project.id, installInstanceId);
  if (!cleared?.wasUninstalled) {
    return false;
  }
  const eventId = `ie_${newTimeId()}`;
  await insertOutboxRows(tx, [
    {
      table: 'install_events',
      factId: eventId,
      projectId: project.id,
      enrichInstall: installInstanceId,
      row: {
        event_id: eventId,
        project_id: project.id,
        install_instance_id: installInstanceId,
        kind: 'reinstall_after_uninstall',
        ts: formatChTime(nowMs),
        project_tz: project.timezone,
        day: localDay(nowMs, project.timezone),
        platform: cleared.platform,
        app_version: '',
        package_version: '',
        ip: '',
        os: '',
        os_version: '',
        device_model: '',
      },
    },
  ]);
  return true;
}
