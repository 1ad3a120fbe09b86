// attribution-data carries device_data.install_ref (spec: "include install_ref", so the ad
// network's referrer can be resolved). An install still pending whose init had no referrer (the
// Play Install Referrer API answered after init) takes it here, and its decision runs again with
// it; ignored, the install was decided organic although its click was known.
import type { Deps } from '../../deps.ts';
import { enqueueAttributionOrHold } from '../../queue/enqueue.ts';
import { setLateInstallRef } from '../../store/postgres/installs.ts';
import { retryConflicts } from '../../store/postgres/pool.ts';
import type { Project } from '../../store/postgres/projects.ts';
import { readDeviceSignals } from './device-signals.ts';

export async function takeLateInstallRef(
  deps: Pick<Deps, 'sql' | 'config' | 'queue'>,
  project: Project,
  installInstanceId: string,
  deviceData: Record<string, unknown>,
): Promise<void> {
  // The Play timestamps come with the referrer (install_ref_installBeginTimestampSeconds), read as
  // init reads them: a download begun before the click marks click injection.
  const { installRef, installBeginAt } = readDeviceSignals('ANDROID', deviceData);
  if (!installRef) {
    return;
  }
  const taken = () => setLateInstallRef(deps.sql, project.id, installInstanceId, installRef, installBeginAt);
  if (await retryConflicts(taken)) {
    await enqueueAttributionOrHold(deps, project.id, installInstanceId);
  }
}
