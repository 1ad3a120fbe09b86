// A device id that reached an install after its decision (iOS sends idfa only once ATT is granted,
// usually after the first launch, and the install is decided on that first launch): when the
// device was installed before within the reattribution window, the install is marked a reinstall
// in Postgres, as a login is (trigger). The decision and its `attributions` fact stay as made:
// that table has no sign column to correct a row with, so reports keep counting the install as
// decided, and get-attribution-result's match.reinstall tells it was a reinstall.
import type { Deps } from '../../deps.ts';
import { findAttributionSettingsCached } from '../../store/postgres/attribution-settings.ts';
import type { InstallRecord } from '../../store/postgres/installs.ts';
import { devicesSeenBefore, markReinstall } from '../../store/postgres/reinstalls.ts';
import { attributionSettings, reattributionSince } from './settings.ts';

/** True when the install, as it is now (after the late id was stored), was marked a reinstall. */
export async function markLateReinstall(deps: Pick<Deps, 'sql'>, install: InstallRecord): Promise<boolean> {
  if (install.attributionStatus !== 'decided' || install.isReinstall) {
    // A pending install is decided with the id (a decision made without it is not saved).
    return false;
  }
  const cfg = attributionSettings(await findAttributionSettingsCached(deps.sql, install.projectId));
  const [seen] = await devicesSeenBefore(deps.sql, [{ install, since: reattributionSince(install.createdAt, cfg) }]);
  return seen === true && (await markReinstall(deps.sql, install.projectId, install.installInstanceId));
}
