// A campaign link handle-deeplink reports for an install the service has not stored yet: the iOS
// SDK's initialize() never sends `link`, and at a cold start the app's handleDeeplink can reach the
// service before init (real-clients §4.1, §4.10). The link is kept (pending_deeplinks) and the
// install's init takes it as its init link (register-install.ts). Each side writes its own row,
// then reads the other's, so one of them always sees both: init reads after its install is
// committed, and here the install is read again after the link is saved; when both see both, the
// link is applied twice, which changes nothing (campaign-link.ts, the attribution job's fixed id).
import type { Deps } from '../../deps.ts';
import { findInstall, type InstallRecord } from '../../store/postgres/installs.ts';
import { savePendingDeeplink, takePendingDeeplink } from '../../store/postgres/pending-deeplinks.ts';
import { retryConflicts } from '../../store/postgres/pool.ts';

/** How long a kept link waits for its init; an older one is ignored, and deleted by later saves. */
export const KEPT_LINK_TTL_MS = 3600_000;

/**
 * Keeps `link` for the install's init. Returns the install when init stored it meanwhile (and
 * may have read no link): the caller then handles the link as for a known install.
 */
export async function keepLinkForInit(
  deps: Pick<Deps, 'sql' | 'now'>,
  projectId: string,
  installInstanceId: string,
  link: string,
): Promise<InstallRecord | undefined> {
  const now = deps.now();
  const staleBefore = new Date(now - KEPT_LINK_TTL_MS);
  await retryConflicts(() =>
    savePendingDeeplink(deps.sql, { projectId, installInstanceId, link, at: new Date(now) }, staleBefore),
  );
  const install = await findInstall(deps.sql, projectId, installInstanceId);
  if (install) {
    await takePendingDeeplink(deps.sql, projectId, installInstanceId, staleBefore);
  }
  return install;
}
